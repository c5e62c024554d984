import { sql, type Kysely } from 'kysely';
import { replaceRegisterFunction } from './2026-11-23T1200-repeat-of';

// The outbox of issue 12: one event per stored submission while WEBHOOK_URL is set, written in
// the submission's transaction, so a sign-up answered 201 always has its event. The event holds
// no copy of the person's data: the delivery reads it from the registration, so erasing a
// registration leaves nothing behind (the events go with it).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('registration_id', 'text', (column) =>
      column.notNull().references('registrations.id').onDelete('cascade'),
    )
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('next_attempt_at', 'text', (column) => column.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('last_error', 'text')
    .execute();
  // What the dispatcher asks many times a second: the pending events that are due.
  await db.schema
    .createIndex('webhook_events_due')
    .on('webhook_events')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_events_registration')
    .on('webhook_events')
    .column('registration_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_events').execute();
}

// PostgreSQL only: the sign-ups' stored function gains the events. `register_sign_ups` is
// register_unless_duplicate with one more argument, the events' ids (null: webhooks off); the old
// name stays, calling the new one without events, for instances of the previous version still
// running during a rolling deploy.
export const postgres = {
  async up(db: Kysely<unknown>): Promise<void> {
    await up(db);
    await createRegisterSignUps(db);
    await sql`
      create or replace function register_unless_duplicate(
        new_ids text[], new_created_ats text[], new_names text[], new_emails text[],
        new_phones text[], new_notes text[], new_marketing_ids text[], new_package_keys text[],
        new_sources text[], window_starts text[]
      ) returns table (id text, created boolean) language sql volatile as $$
        select * from register_sign_ups(new_ids, new_created_ats, new_names, new_emails,
          new_phones, new_notes, new_marketing_ids, new_package_keys, new_sources, window_starts,
          null)
      $$`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await replaceRegisterFunction(db);
    await sql`drop function register_sign_ups`.execute(db);
    await down(db);
  },
};

/** This version's register_sign_ups (the next migration's `down` puts it back). */
export async function createRegisterSignUps(db: Kysely<unknown>): Promise<void> {
  await sql`
      create function register_sign_ups(
        new_ids text[], new_created_ats text[], new_names text[], new_emails text[],
        new_phones text[], new_notes text[], new_marketing_ids text[], new_package_keys text[],
        new_sources text[], window_starts text[], new_event_ids text[]
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
          if new_event_ids is not null then
            insert into webhook_events (id, registration_id, type, status, created_at,
                next_attempt_at)
              values (new_event_ids[i], new_ids[i],
                case when first_id is null then 'registration.created'
                  else 'registration.repeated' end,
                'pending', new_created_ats[i], new_created_ats[i]);
          end if;
          return query select coalesce(first_id, new_ids[i]), first_id is null;
        end loop;
      end
      $$`.execute(db);
}
