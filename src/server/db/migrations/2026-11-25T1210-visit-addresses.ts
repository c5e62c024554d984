import type { Kysely } from 'kysely';

// Issue 27: what one address may add to the visits is bounded per day, so a visit row keeps a
// hash of its address (IPv6: its /48) under the day's salt, as the visitor hash is, and goes
// with it at the roll-up. Rows counted before have none ('').
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('visits')
    .addColumn('address_hash', 'text', (column) => column.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createIndex('visits_day_address_hash')
    .on('visits')
    .columns(['day', 'address_hash'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('visits_day_address_hash').execute();
  await db.schema.alterTable('visits').dropColumn('address_hash').execute();
}
