import type { Kysely } from 'kysely';

// Issue 35: retention deletes the oldest submissions a few thousand at a time, each chunk in a
// short transaction; without these, every chunk would read the whole table twice (the oldest by
// created_at, then their repeats by repeat_of). Built once, at the start that runs it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('registrations_created_at_id')
    .on('registrations')
    .columns(['created_at', 'id'])
    .execute();
  // Repeats only: a lead (most rows) adds nothing to it, so a sign-up costs it nothing.
  await db.schema
    .createIndex('registrations_repeat_of')
    .on('registrations')
    .column('repeat_of')
    .where('repeat_of', 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('registrations_repeat_of').execute();
  await db.schema.dropIndex('registrations_created_at_id').execute();
}
