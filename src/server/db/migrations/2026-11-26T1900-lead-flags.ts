import type { Kysely } from 'kysely';

// Issue 37: a lead's flags (why its credit is doubtful), checked in the transaction that stores
// it, and every decision on its credit, a record only added to (the latest one counts). Both
// go with the lead when it is erased or retention deletes it; the counts kept for deleted leads
// keep how many were flagged and how many were not credited.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lead_flags')
    .addColumn('registration_id', 'text', (column) => column.notNull())
    .addColumn('flag', 'text', (column) => column.notNull())
    .addColumn('other_id', 'text')
    .addPrimaryKeyConstraint('lead_flags_pkey', ['registration_id', 'flag'])
    .execute();
  await db.schema
    .createTable('lead_reviews')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('registration_id', 'text', (column) => column.notNull())
    .addColumn('credited', 'integer', (column) => column.notNull())
    .addColumn('reviewed_by', 'text', (column) => column.notNull())
    .addColumn('note', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('reviewed_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('lead_reviews_registration')
    .on('lead_reviews')
    .columns(['registration_id', 'reviewed_at'])
    .execute();
  for (const column of ['flagged', 'not_credited']) {
    await db.schema
      .alterTable('sign_up_totals')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['not_credited', 'flagged']) {
    await db.schema.alterTable('sign_up_totals').dropColumn(column).execute();
  }
  await db.schema.dropTable('lead_reviews').execute();
  await db.schema.dropTable('lead_flags').execute();
}
