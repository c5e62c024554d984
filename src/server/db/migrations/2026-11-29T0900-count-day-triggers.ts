import { sql, type Kysely } from 'kysely';

// Issue 46: any write to a finished day's counted rows makes that day counted again. The
// writers no longer say so themselves (a visit flushed late, a sign-up that waited in the commit
// queue past midnight, an instance whose clock lags all did not): each table a count reads marks
// the day of every row written, in the writer's own transaction, when the day is one the
// counts may keep — before today by the database's clock, or already kept or being kept
// (count_rollup_days) — and today's sign-ups pay a comparison and one index look-up.

/** Each table a count reads, and the UTC day (YYYY-MM-DD) of one of its rows, `row`. */
const countedTables = {
  registrations: (row: string) => `substr(${row}.created_at, 1, 10)`,
  visits: (row: string) => `${row}.day`,
  visit_totals: (row: string) => `${row}.day`,
  sign_up_totals: (row: string) => `${row}.day`,
  // A decision or a flag counts on its lead's day.
  lead_reviews: (row: string) =>
    `(select substr(lead.created_at, 1, 10) from registrations as lead where lead.id = ${row}.registration_id)`,
  lead_flags: (row: string) =>
    `(select substr(lead.created_at, 1, 10) from registrations as lead where lead.id = ${row}.registration_id)`,
};
type CountedTable = keyof typeof countedTables;
const events = ['insert', 'update', 'delete'] as const;

/** Whether the counts of `day` may be kept: before the database's today, or kept already. */
const keepable = (day: string, today: string) =>
  `(${day} < ${today} or exists (select 1 from count_rollup_days as kept where kept.day = ${day}))`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await start(db);
  for (const [table, dayOf] of Object.entries(countedTables)) {
    for (const event of events) {
      const row = event === 'delete' ? 'old' : 'new';
      const day = dayOf(row);
      await sql
        .raw(
          `create trigger ${table}_${event}_counts after ${event} on ${table}
          when ${keepable(day, "date('now')")}
          begin
            insert into count_day_changes (day, changes) values (${day}, 1)
            on conflict (day) do update set changes = changes + 1;
          end`,
        )
        .execute(db);
    }
  }
}

// PostgreSQL runs a statement's trigger once for all its rows (a batch of sign-ups is one
// insert), reading them from the statement's transition table. Each function keeps the schema
// it was made in: a writer whose search_path names another (an operator's psql, a script
// writing schema.registrations) still marks the days here.
async function postgresUp(db: Kysely<unknown>): Promise<void> {
  await start(db);
  for (const [table, dayOf] of Object.entries(countedTables)) {
    const day = dayOf('changed');
    const today = `to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD')`;
    await sql
      .raw(
        `create function ${table}_counts() returns trigger language plpgsql
        set search_path from current as $$
        begin
          insert into count_day_changes (day, changes)
          select day, 1 from (select distinct ${day} as day from changed) as days
          where day is not null and ${keepable('day', today)}
          on conflict (day) do update set changes = count_day_changes.changes + 1;
          return null;
        end $$`,
      )
      .execute(db);
    for (const event of events) {
      const transition = event === 'delete' ? 'old' : 'new';
      await sql
        .raw(
          `create trigger ${table}_${event}_counts after ${event} on ${table}
          referencing ${transition} table as changed
          for each statement execute function ${table}_counts()`,
        )
        .execute(db);
    }
  }
}

/**
 * What was kept was counted by writers that said what they changed: it is forgotten, and the
 * mark of a change to every day ('*') with it. The kept days are looked up by day.
 */
async function start(db: Kysely<unknown>): Promise<void> {
  await sql`delete from count_rollups`.execute(db);
  await sql`delete from count_rollup_days`.execute(db);
  await sql`delete from count_day_changes`.execute(db);
  await sql`create index count_rollup_days_day on count_rollup_days (day)`.execute(db);
}

async function dropTriggers(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  for (const table of Object.keys(countedTables) as CountedTable[]) {
    for (const event of events) {
      await sql
        .raw(`drop trigger ${table}_${event}_counts${postgres ? ` on ${table}` : ''}`)
        .execute(db);
    }
    if (postgres) await sql.raw(`drop function ${table}_counts()`).execute(db);
  }
  await sql`drop index count_rollup_days_day`.execute(db);
}

export const down = (db: Kysely<unknown>) => dropTriggers(db, false);
export const postgres = { up: postgresUp, down: (db: Kysely<unknown>) => dropTriggers(db, true) };
