import type { Kysely } from 'kysely';

// Issue 49: the e-mails, each queued in the transaction that causes it and sent from here as the
// webhook events are (docs/email.md). Unlike an event, a row holds the e-mail whole (recipient,
// subject, bodies, headers): what it said is what was true when it was queued. The unique
// (kind, dedupe_key) makes a second queue of the same person, kind and week (or lead) a no-op.
// message_id is set by the first claim and kept, so that an e-mail sent twice (a crash between
// the relay's acceptance and its record) carries one Message-ID.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('dedupe_key', 'text', (column) => column.notNull())
    .addColumn('recipient', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('text_body', 'text', (column) => column.notNull())
    .addColumn('html_body', 'text')
    .addColumn('headers', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('next_attempt_at', 'text', (column) => column.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('message_id', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('last_error', 'text')
    .addUniqueConstraint('mail_outbox_dedupe', ['kind', 'dedupe_key'])
    .execute();
  // What the sender asks every poll: the waiting e-mails that are due.
  await db.schema
    .createIndex('mail_outbox_due')
    .on('mail_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mail_outbox').execute();
}
