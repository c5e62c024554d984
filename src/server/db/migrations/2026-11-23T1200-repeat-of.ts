import { sql, type Kysely } from 'kysely';
import * as postgresRegisterFunction from './2026-11-22T0100-postgres-register-function';

// Every accepted submission is kept (issue 12): a repeat of the same phone and notes within
// 24 hours is stored too, its `repeat_of` naming the first row of the 24 hours (the lead, whose
// own repeat_of is null). Existing rows are all leads: the column is added null.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('registrations').addColumn('repeat_of', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('registrations').dropColumn('repeat_of').execute();
}

// PostgreSQL only (see migrate.ts): the stored function of 2026-11-22T0100 now inserts every
// sign-up, a repeat with the first row's id in repeat_of, and still answers the first row's id;
// `created` says whether the row is a lead. Its name and signature stay, so that instances of
// the previous version, still running during a rolling deploy, keep calling it and store
// repeats too. The locks and the order of the rows are as before.
export const postgres = {
  async up(db: Kysely<unknown>): Promise<void> {
    await up(db);
    await replaceRegisterFunction(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop function register_unless_duplicate`.execute(db);
    await postgresRegisterFunction.up(db);
    await down(db);
  },
};

/** This version's register_unless_duplicate (the next migration's `down` puts it back). */
export async function replaceRegisterFunction(db: Kysely<unknown>): Promise<void> {
  await sql`
      create or replace function register_unless_duplicate(
        new_ids text[], new_created_ats text[], new_names text[], new_emails text[],
        new_phones text[], new_notes text[], new_marketing_ids text[], new_package_keys text[],
        new_sources text[], window_starts text[]
      ) returns table (id text, created boolean) language plpgsql volatile as $$
      declare
        first_id text;
      begin
        perform pg_advisory_xact_lock(lock_key) from (
          select distinct hashtextextended(phone || ' ' || notes, 0) as lock_key
          from unnest(new_phones, new_notes) as sign_up(phone, notes)
          order by lock_key
        ) as lock_keys;
        for i in 1 .. cardinality(new_ids) loop
          select r.id into first_id from registrations r
          where r.phone = new_phones[i] and r.notes = new_notes[i]
            and r.created_at > window_starts[i] and r.repeat_of is null
          order by r.created_at limit 1;
          insert into registrations (id, created_at, name, email, phone, notes, marketing_id,
              package_key, source, repeat_of)
            values (new_ids[i], new_created_ats[i], new_names[i], new_emails[i], new_phones[i],
              new_notes[i], new_marketing_ids[i], new_package_keys[i], new_sources[i], first_id);
          return query select coalesce(first_id, new_ids[i]), first_id is null;
        end loop;
      end
      $$`.execute(db);
}
