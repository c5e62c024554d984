import { sql, type Kysely } from 'kysely';

// Issue 47: reused_form counts the leads sent with one served form's stamp (its time, signed).
// Only the sign-ups that came with a valid stamp are in it: the API's, without one, add nothing.
// With the time and repeat_of, the first leads of a stamp are read from the index alone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index registrations_served_at on registrations
    (served_at, created_at, repeat_of) where served_at is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('registrations_served_at').execute();
}
