import type { Kysely } from 'kysely';

// Issue 49: who asked to be told what (docs/notifications.md). One row a person of the platform,
// by their token's subject: the address their e-mails go to once confirmed, their choices, and
// the token of their unsubscribe links (random, naming neither the address nor the person).
// A confirmation is kept by its token's hash (the link is the only copy of the token): it holds
// the address and choices it confirms, single-use, until it expires. Each confirmation used is a
// consent, only ever added to. A run of the summaries is one row a kind and period: the instance
// that inserts it sends them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_subscribers')
    .addColumn('subject', 'text', (column) => column.primaryKey())
    .addColumn('audience', 'text', (column) => column.notNull())
    .addColumn('email', 'text')
    .addColumn('confirmed_at', 'text')
    .addColumn('weekly_summary', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('client_alerts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('review_digest', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('unsubscribe_token', 'text', (column) => column.notNull().unique())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('mail_confirmations')
    .addColumn('token_hash', 'text', (column) => column.primaryKey())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('choices', 'text', (column) => column.notNull())
    .addColumn('text_version', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('used_at', 'text')
    .execute();
  // The limits: confirmations of a person in a day, of an address in an hour.
  await db.schema
    .createIndex('mail_confirmations_subject')
    .on('mail_confirmations')
    .columns(['subject', 'created_at'])
    .execute();
  await db.schema
    .createIndex('mail_confirmations_email')
    .on('mail_confirmations')
    .columns(['email', 'created_at'])
    .execute();
  await db.schema
    .createTable('mail_consents')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('choices', 'text', (column) => column.notNull())
    .addColumn('text_version', 'text', (column) => column.notNull())
    .addColumn('consented_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('mail_consents_subject')
    .on('mail_consents')
    .column('subject')
    .execute();
  await db.schema
    .createTable('mail_runs')
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('period', 'text', (column) => column.notNull())
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('finished_at', 'text')
    .addPrimaryKeyConstraint('mail_runs_key', ['kind', 'period'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['mail_runs', 'mail_consents', 'mail_confirmations', 'mail_subscribers']) {
    await db.schema.dropTable(table).execute();
  }
}
