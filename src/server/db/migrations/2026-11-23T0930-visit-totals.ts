import type { Kysely } from 'kysely';

// A finished day's visits are rolled up into counts per link (no visitor hashes), and the
// visitor salt leaves the database for memory or Redis: a hash whose salt is kept beside it, or
// in a backup, can be recomputed from an IP and a user agent (docs/security.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('visit_totals')
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('marketing_id', 'text', (column) => column.notNull())
    .addColumn('package_key', 'text', (column) => column.notNull())
    .addColumn('visits', 'integer', (column) => column.notNull())
    .addColumn('visitors', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('visit_totals_pk', ['day', 'marketing_id', 'package_key'])
    .execute();
  await db.schema.dropTable('visit_salts').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('visit_salts')
    .addColumn('day', 'text', (column) => column.primaryKey())
    .addColumn('salt', 'text', (column) => column.notNull())
    .execute();
  await db.schema.dropTable('visit_totals').execute();
}
