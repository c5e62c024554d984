import { sql, type Kysely } from 'kysely';
import { createRegisterSignUps } from './2026-11-23T1500-webhook-events';

const utmColumns = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'];

// The campaign of issue 21. A sign-up keeps the campaign parameters of the page it was sent
// from; rows stored before came from links nobody tagged, so the columns are added null.
// A visit keeps the utm_source and utm_campaign of the visitor's first view of the link that
// day (its key stays the link and the visitor, so per-link counts do not change), and a day's
// totals are kept per link and campaign: '' for none, as for the link's own parts. Instances of
// the previous version, still running during a rolling deploy, keep counting visits (the new
// columns default to ''); their roll-up fails, logged, and is done by the new ones.
const visitColumns = ['utm_source', 'utm_campaign'];

/**
 * visit_totals per link and day, and per campaign too when `withCampaign`. SQLite cannot change
 * a table's primary key, so the table is made anew and its rows moved (summed, going down).
 */
async function rebuildVisitTotals(
  db: Kysely<unknown>,
  withCampaign: boolean,
  postgres: boolean,
): Promise<void> {
  await db.schema.alterTable('visit_totals').renameTo('visit_totals_before').execute();
  // PostgreSQL names the key's index after the constraint, and index names are the schema's.
  if (postgres) {
    await sql`alter table visit_totals_before rename constraint visit_totals_pk
      to visit_totals_before_pk`.execute(db);
  }
  const table = db.schema
    .createTable('visit_totals')
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('marketing_id', 'text', (column) => column.notNull())
    .addColumn('package_key', 'text', (column) => column.notNull())
    .addColumn('visits', 'integer', (column) => column.notNull())
    .addColumn('visitors', 'integer', (column) => column.notNull());
  const link = ['day', 'marketing_id', 'package_key'] as const;
  await (
    withCampaign
      ? table
          .addColumn('utm_source', 'text', (column) => column.notNull().defaultTo(''))
          .addColumn('utm_campaign', 'text', (column) => column.notNull().defaultTo(''))
          .addPrimaryKeyConstraint('visit_totals_pk', [...link, 'utm_source', 'utm_campaign'])
      : table.addPrimaryKeyConstraint('visit_totals_pk', [...link])
  ).execute();
  // Going up, the rows before had no campaign; going down, a link's campaigns are added up.
  const key = sql.raw(link.join(', '));
  await sql`insert into visit_totals (${key}, visits, visitors)
    select ${key}, sum(visits), sum(visitors) from visit_totals_before group by ${key}`.execute(db);
  await db.schema.dropTable('visit_totals_before').execute();
}

async function upOn(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  for (const column of utmColumns) {
    await db.schema.alterTable('registrations').addColumn(column, 'text').execute();
  }
  for (const column of visitColumns) {
    await db.schema
      .alterTable('visits')
      .addColumn(column, 'text', (col) => col.notNull().defaultTo(''))
      .execute();
  }
  await rebuildVisitTotals(db, true, postgres);
}

async function downOn(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  await rebuildVisitTotals(db, false, postgres);
  for (const column of utmColumns) {
    await db.schema.alterTable('registrations').dropColumn(column).execute();
  }
  for (const column of visitColumns) {
    await db.schema.alterTable('visits').dropColumn(column).execute();
  }
}

export const up = (db: Kysely<unknown>) => upOn(db, false);
export const down = (db: Kysely<unknown>) => downOn(db, false);

// PostgreSQL only: register_sign_ups takes the five parameters as five more arrays. They
// default to null, so that instances of the previous version, still calling it with eleven
// arguments during a rolling deploy, keep signing people up (without campaign), and so does
// register_unless_duplicate, which calls it by name. A function's arguments cannot be replaced
// in place: the old one is dropped and the new one created, in the migration's transaction.
export const postgres = {
  async up(db: Kysely<unknown>): Promise<void> {
    await upOn(db, true);
    await sql`drop function register_sign_ups(text[], text[], text[], text[], text[], text[],
      text[], text[], text[], text[], text[])`.execute(db);
    await createCampaignRegisterSignUps(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop function register_sign_ups`.execute(db);
    await createRegisterSignUps(db);
    await downOn(db, true);
  },
};

/** This version's register_sign_ups (the 2026-11-25T0900 migration's `down` puts it back). */
export async function createCampaignRegisterSignUps(db: Kysely<unknown>): Promise<void> {
  await sql`
      create function register_sign_ups(
        new_ids text[], new_created_ats text[], new_names text[], new_emails text[],
        new_phones text[], new_notes text[], new_marketing_ids text[], new_package_keys text[],
        new_sources text[], window_starts text[], new_event_ids text[],
        new_utm_sources text[] default null, new_utm_media text[] default null,
        new_utm_campaigns text[] default null, new_utm_terms text[] default null,
        new_utm_contents text[] default null
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
          -- An array left null gives null for every row.
          insert into registrations (id, created_at, name, email, phone, notes, marketing_id,
              package_key, source, repeat_of, utm_source, utm_medium, utm_campaign, utm_term,
              utm_content)
            values (new_ids[i], new_created_ats[i], new_names[i], new_emails[i], new_phones[i],
              new_notes[i], new_marketing_ids[i], new_package_keys[i], new_sources[i], first_id,
              new_utm_sources[i], new_utm_media[i], new_utm_campaigns[i], new_utm_terms[i],
              new_utm_contents[i]);
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
