import type { Kysely } from 'kysely';

// Issue 37: what the flag checks need of a sign-up besides its fields. address_hash is its
// address (IPv6: its /48) hashed under the day's visitor salt, as the visits' address_hash is
// ('' when unknown, and on rows stored before); served_at is when the server served the form it
// was sent from, as the form's signed stamp says (null without a valid stamp).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('registrations')
    .addColumn('address_hash', 'text', (col) => col.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('registrations').addColumn('served_at', 'text').execute();
  // same_address counts a link's leads from one address on one day: the hash is the day's, so
  // its rows are that day's alone, and the lookup reads a few of them, not the link's day.
  await db.schema
    .createIndex('registrations_address')
    .on('registrations')
    .columns(['address_hash', 'marketing_id', 'package_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('registrations_address').execute();
  await db.schema.alterTable('registrations').dropColumn('served_at').execute();
  await db.schema.alterTable('registrations').dropColumn('address_hash').execute();
}
