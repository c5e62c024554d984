import type { Kysely } from 'kysely';

// Issue 35: a submission records the notice version its page sent, the one it showed, and
// whether it sent one (1) or not (0: the server's notice at the time is recorded, as every row
// stored before this was; instances of the previous version, during a rolling deploy, store 0).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('registrations')
    .addColumn('privacy_attested', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('registrations').dropColumn('privacy_attested').execute();
}
