import type { Kysely } from 'kysely';

// Page visits of the form routes (docs/marketer-kit.md): one row per day, link and visitor, counting that
// visitor's page views. '' stands for "no marketer" and "no package" (the free trial), because
// a key with a NULL in it never conflicts, and the upsert needs it to. visitor_hash is an HMAC
// of IP and user agent under that day's salt; the salt is deleted after the next day.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('visits')
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('marketing_id', 'text', (column) => column.notNull())
    .addColumn('package_key', 'text', (column) => column.notNull())
    .addColumn('visitor_hash', 'text', (column) => column.notNull())
    .addColumn('count', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('visits_pk', ['day', 'marketing_id', 'package_key', 'visitor_hash'])
    .execute();
  await db.schema
    .createTable('visit_salts')
    .addColumn('day', 'text', (column) => column.primaryKey())
    .addColumn('salt', 'text', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('visit_salts').execute();
  await db.schema.dropTable('visits').execute();
}
