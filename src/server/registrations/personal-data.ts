import type { PoolClient } from 'pg';
import type {
  Database,
  PostgresDatabase,
  RegistrationsTable,
  SqliteDatabase,
  WebhookEventsTable,
} from '../db/schema';
import type { LinkSignUps } from './registration-repository';

// Issue 15 (the PDPL): submissions deleted by age (RETENTION_DAYS) or on a person's request
// (`npm run person -- --erase`), and everything stored about one person. Neither runs often,
// so the statements are written per call rather than prepared.

/** Whose submissions: by age, or one person by phone or by e-mail. */
export type Selection = { createdBefore: string } | { phone: string } | { email: string };

/** What a deletion removed: the submissions' ids and how many webhook events went with them. */
export interface Deleted {
  ids: string[];
  webhookEvents: number;
}

/** One submission and its webhook events, as the person command prints them. */
export type PersonRow = RegistrationsTable & {
  webhook_events: WebhookEventsTable[];
};

// The condition on `registrations` for each selection, with its one parameter as $1.
// - By age: a lead past the limit takes its repeats with it (at most 24 hours younger), so no
//   kept row is counted for a link that is no longer there.
// - A person: every row of their phone, or of the phones that gave that e-mail, so that a repeat
//   typed with another e-mail goes too.
function condition(selection: Selection): { where: string; value: string } {
  if ('createdBefore' in selection) {
    return {
      where: `(created_at < $1 or repeat_of in (select id from registrations where created_at < $1))`,
      value: selection.createdBefore,
    };
  }
  if ('phone' in selection) return { where: 'phone = $1', value: selection.phone };
  return {
    where: `(lower(email) = lower($1)
      or phone in (select phone from registrations where lower(email) = lower($1)))`,
    value: selection.email,
  };
}

// Before the rows go, their counts join the totals, each for its lead's link (as countByLink
// counts a repeat): the report adds these to what is still stored.
const rollUp = (where: string) => `insert into sign_up_totals
    (day, marketing_id, package_key, leads, repeats)
  select substr(sign_up.created_at, 1, 10), coalesce(lead.marketing_id, ''),
      coalesce(lead.package_key, ''), count(*) - count(sign_up.repeat_of), count(sign_up.repeat_of)
  from registrations sign_up join registrations lead on lead.id = coalesce(sign_up.repeat_of, sign_up.id)
  where sign_up.id in (select id from registrations where ${where})
  group by substr(sign_up.created_at, 1, 10), coalesce(lead.marketing_id, ''),
    coalesce(lead.package_key, '')
  on conflict (day, marketing_id, package_key) do update set
    leads = sign_up_totals.leads + excluded.leads, repeats = sign_up_totals.repeats + excluded.repeats`;
const selectIds = (where: string) =>
  `select id from registrations where ${where} order by created_at, id`;
const deleteEvents = (where: string) =>
  `delete from webhook_events where registration_id in (select id from registrations where ${where})`;
const deleteRows = (where: string) => `delete from registrations where ${where}`;
const selectRows = (where: string) =>
  `select * from registrations where ${where} order by created_at, id`;
const selectEvents = (where: string) => `select id, registration_id, type, status, attempts,
    created_at, next_attempt_at, locked_until, delivered_at, last_error
  from webhook_events where registration_id in (select id from registrations where ${where})
  order by created_at, id`;

interface TotalsRow {
  marketing_id: string;
  package_key: string;
  leads: number | string;
  repeats: number | string;
}
const totals = `select marketing_id, package_key, sum(leads) as leads, sum(repeats) as repeats
  from sign_up_totals where day >= $1 group by marketing_id, package_key`;

function sqliteParameters(sql: string): string {
  return sql.replaceAll('$1', '@value');
}

function deleteOnSqlite({ driver }: SqliteDatabase, selection: Selection): Deleted {
  const { where, value } = condition(selection);
  const run = (sql: string) => driver.prepare(sqliteParameters(sql));
  // IMMEDIATE: the server's sign-ups wait for it, so no repeat is linked to a row being deleted.
  const deleted = driver
    .transaction((): Deleted => {
      const ids = run(selectIds(where)).pluck().all({ value }) as string[];
      if (ids.length === 0) return { ids, webhookEvents: 0 };
      run(rollUp(where)).run({ value });
      const webhookEvents = run(deleteEvents(where)).run({ value }).changes;
      run(deleteRows(where)).run({ value });
      return { ids, webhookEvents };
    })
    .immediate();
  // secure_delete (db/sqlite.ts) has zeroed the rows in their pages; the copies of the pages
  // still in the write-ahead log are dropped with it. Readers in the middle of a read may keep
  // part of it until the next checkpoint, which SQLite runs by itself.
  if (deleted.ids.length > 0) driver.pragma('wal_checkpoint(TRUNCATE)');
  return deleted;
}

// Two instances (or the command and a server) deleting at once take turns on this lock, so the
// second finds the rows gone and counts nothing twice.
const deletionLock = "select pg_advisory_xact_lock(hashtext('tasjeel-personal-data-deletion'))";

async function deleteOnPostgres({ driver: pool }: PostgresDatabase, selection: Selection) {
  const { where, value } = condition(selection);
  return inTransaction(pool, async (client): Promise<Deleted> => {
    await client.query(deletionLock);
    const { rows } = await client.query<{ id: string }>(selectIds(where), [value]);
    if (rows.length === 0) return { ids: [], webhookEvents: 0 };
    await client.query(rollUp(where), [value]);
    const events = await client.query(deleteEvents(where), [value]);
    await client.query(deleteRows(where), [value]);
    return { ids: rows.map(({ id }) => id), webhookEvents: events.rowCount ?? 0 };
  });
}

async function inTransaction<T>(
  pool: PostgresDatabase['driver'],
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Deletes the selected submissions and their webhook events in one transaction, after adding
 * their counts to the report's daily totals. Deleting what is already gone does nothing.
 */
export async function deleteSubmissions(
  database: Database,
  selection: Selection,
): Promise<Deleted> {
  return database.kind === 'sqlite'
    ? deleteOnSqlite(database, selection)
    : deleteOnPostgres(database, selection);
}

/** Every submission of a person (by phone, or by e-mail and the phones it came with). */
export async function findPerson(
  database: Database,
  selection: { phone: string } | { email: string },
): Promise<PersonRow[]> {
  const { where, value } = condition(selection);
  let rows: RegistrationsTable[];
  let events: WebhookEventsTable[];
  if (database.kind === 'sqlite') {
    const { driver } = database;
    rows = driver
      .prepare<{ value: string }, RegistrationsTable>(sqliteParameters(selectRows(where)))
      .all({ value });
    events = driver
      .prepare<{ value: string }, WebhookEventsTable>(sqliteParameters(selectEvents(where)))
      .all({ value });
  } else {
    // One snapshot for both, so an event is never without its submission.
    [rows, events] = await inTransaction(database.driver, async (client) => {
      await client.query('set transaction isolation level repeatable read');
      return [
        (await client.query<RegistrationsTable>(selectRows(where), [value])).rows,
        (await client.query<WebhookEventsTable>(selectEvents(where), [value])).rows,
      ];
    });
  }
  return rows.map((row) => ({
    ...row,
    webhook_events: events.filter((event) => event.registration_id === row.id),
  }));
}

/** The deleted submissions' leads and repeats per link, from `since` (a UTC day) on. */
export async function deletedTotals(database: Database, since = ''): Promise<LinkSignUps[]> {
  const rows =
    database.kind === 'sqlite'
      ? database.driver
          .prepare<{ value: string }, TotalsRow>(sqliteParameters(totals))
          .all({ value: since })
      : (await database.driver.query<TotalsRow>(totals, [since])).rows;
  return rows.map((row) => ({
    marketingId: row.marketing_id === '' ? null : row.marketing_id,
    packageKey: row.package_key === '' ? null : row.package_key,
    // PostgreSQL's sum of integers is a bigint, which pg gives as text.
    leads: Number(row.leads),
    repeats: Number(row.repeats),
  }));
}
