import type { Kysely } from 'kysely';

// Issue 15: submissions are deleted (RETENTION_DAYS, `npm run person -- --erase`), yet the
// report's leads and repeats must stay right. What is deleted is first counted here, per UTC day
// of the submission and per link of its lead, as visits are in visit_totals: counts only, no
// person in them. '' stands for no marketer and for the free trial, so the key has no null.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sign_up_totals')
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('marketing_id', 'text', (column) => column.notNull())
    .addColumn('package_key', 'text', (column) => column.notNull())
    .addColumn('leads', 'integer', (column) => column.notNull())
    .addColumn('repeats', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('sign_up_totals_pk', ['day', 'marketing_id', 'package_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sign_up_totals').execute();
}
