import { createHash } from 'node:crypto';
import {
  PostgresAdapter,
  sql,
  type Kysely,
  type OperationNodeSource,
  type QueryExecutor,
  type SelectQueryBuilder,
} from 'kysely';
import type { Database, Tables } from './schema';

// Where SQLite and PostgreSQL truly differ, each difference once. Every other query is the same
// Kysely code on both.

/** A name's PostgreSQL advisory lock: the first 64 bits of its SHA-256, signed. */
export function lockKey(name: string): bigint {
  return BigInt.asIntN(
    64,
    BigInt(`0x${createHash('sha256').update(name).digest('hex').slice(0, 16)}`),
  );
}

/**
 * How a write transaction begins. SQLite has one writer: BEGIN IMMEDIATE takes its write lock
 * at once, which covers every name (a deferred BEGIN would read first and could then fail to
 * upgrade, SQLITE_BUSY, when another process wrote in between). PostgreSQL takes one advisory
 * lock a name, in one order so that two transactions cannot deadlock, and each later statement
 * (READ COMMITTED) reads on a snapshot that sees every commit made before the lock was granted.
 * The keys are numbers, written into the text, so that the begin and the locks are one round
 * trip (a query without parameters may hold several statements).
 */
function begin(database: Database, locks: string[]) {
  if (database.kind === 'sqlite') return sql`begin immediate`;
  const keys = [...new Set(locks.map(lockKey))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // unnest gives the keys in the array's order, which is the order the locks are taken in.
  return sql.raw(
    keys.length === 0
      ? 'begin'
      : `begin; select pg_advisory_xact_lock(key) from unnest('{${keys.join(',')}}'::bigint[]) as key`,
  );
}

/**
 * Runs `work` in one transaction that holds each of `locks` until it ends, so that two writers
 * of the same thing (two instances, or the server and `npm run person`) take turns: the later
 * one reads what the earlier one committed.
 */
export function writeTransaction<T>(
  database: Database,
  locks: string[],
  work: (trx: Kysely<Tables>) => Promise<T>,
): Promise<T> {
  return database.db.connection().execute(async (connection) => {
    try {
      // Inside: a lock that times out leaves the transaction begun, and it must be rolled back.
      await begin(database, locks).execute(connection);
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
}

type Insert = OperationNodeSource & { execute(): Promise<unknown> };

/**
 * Inserts of one transaction, one after the other. PostgreSQL runs them as one statement (each
 * but the last a data-modifying WITH), a round trip each fewer while the batch holds its locks;
 * SQLite has no such statement, and nothing to save: it runs in the process.
 */
export async function insertAll(trx: Kysely<Tables>, inserts: readonly Insert[]) {
  const last = inserts.at(-1);
  if (last === undefined) return;
  if (isPostgres(trx)) {
    const withs = inserts
      .slice(0, -1)
      .map((insert, index) => sql`${sql.raw(`i${index}`)} as (${insert})`);
    await (withs.length === 0 ? last.execute() : sql`with ${sql.join(withs)} ${last}`.execute(trx));
  } else {
    for (const insert of inserts) await insert.execute();
  }
}

/**
 * The rows a claim selects, skipped by PostgreSQL while another instance's claim holds them, so
 * that instances claim side by side. SQLite's single writer runs one claim at a time anyway.
 */
export function skippingLocked<DB, TB extends keyof DB, O>(
  database: Database,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return database.kind === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/**
 * Ids as a subquery's rows, bound as one parameter however many they are: a statement takes at
 * most 32,766 parameters on SQLite and 65,535 on PostgreSQL, and a deletion's chunk with its
 * repeats, or one person's rows, has no such bound. SQLite reads a JSON array, PostgreSQL an
 * array; either is read once, then each id looked up by its index.
 */
export function idsTable(database: Database, ids: readonly string[]) {
  return database.kind === 'sqlite'
    ? sql<string>`(select value from json_each(${JSON.stringify(ids)}))`
    : sql<string>`(select unnest(${ids}::text[]))`;
}

/**
 * After a deletion of personal data: SQLite's secure_delete (db/sqlite.ts) has zeroed the rows
 * in their pages, and the copies of the pages still in the write-ahead log are dropped here.
 * The checkpoint holds the write lock while it waits for readers to leave the log, and a reader
 * (the counts' thread, the export) may read for seconds: so it never waits, and is tried again
 * every 100 ms (sign-ups write in between) for up to 30 s; after that SQLite's own checkpoints
 * overwrite the log in time. PostgreSQL keeps dead rows until VACUUM (docs/personal-data.md).
 */
export async function dropDeletedPages(database: Database): Promise<void> {
  if (database.kind !== 'sqlite') return;
  for (const started = Date.now(); Date.now() - started < 30_000;) {
    const busy = await database.db.connection().execute(async (connection) => {
      const { rows: wait } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(
        connection,
      );
      await sql`pragma busy_timeout = 0`.execute(connection);
      try {
        const { rows } = await sql<{
          busy: number;
        }>`pragma wal_checkpoint(TRUNCATE)`.execute(connection);
        return rows[0]?.busy !== 0;
      } finally {
        await sql`pragma busy_timeout = ${sql.lit(wait[0]?.timeout ?? 0)}`.execute(connection);
      }
    });
    if (!busy) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Brings a table's statistics up to date after many rows were written at once. PostgreSQL
 * plans by them, and would read a freshly filled table as the few rows its statistics still
 * count (an index scan of 178,000 rows, 250 ms, where a scan is 70 ms) until autovacuum comes
 * by; SQLite plans by its indexes alone here.
 */
export async function refreshStatistics(database: Database, table: keyof Tables): Promise<void> {
  if (database.kind === 'postgres') await sql`analyze ${sql.table(table)}`.execute(database.db);
}

/**
 * Runs the keeping of the counts' finished days (count-rollups.ts) on one instance at a time,
 * handing it the connection to count on. On PostgreSQL it holds an advisory lock on one of the
 * counts' connections, and counts on that one; an instance that finds it taken does nothing
 * (another is keeping the same days). SQLite serves one instance: its counts go to the reader
 * thread one statement at a time, so that a request's read is never held for a whole run.
 */
export async function withKeepingLock(
  database: Database,
  keep: (reads: Kysely<Tables>) => Promise<void>,
): Promise<void> {
  if (database.kind === 'sqlite') return keep(database.reads);
  const key = lockKey('count-keeping');
  await database.reads.connection().execute(async (connection) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_lock(${String(key)}::bigint) as locked`.execute(connection);
    if (rows[0]?.locked !== true) return;
    try {
      await keep(connection);
    } finally {
      await sql`select pg_advisory_unlock(${String(key)}::bigint)`.execute(connection);
    }
  });
}

/**
 * The database's own UTC day (YYYY-MM-DD), by the clock its count triggers judge a written row's
 * day by (migration count-day-triggers): a write to a day before it is always marked.
 */
export async function databaseToday(database: Database, db: Kysely<Tables>): Promise<string> {
  const today =
    database.kind === 'sqlite'
      ? sql<string>`date('now')`
      : sql<string>`to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD')`;
  const { rows } = await sql<{ today: string }>`select ${today} as today`.execute(db);
  return rows[0]!.today;
}

/** Whether a migration runs on PostgreSQL (a migration is given Kysely alone). */
export function isPostgres(db: { getExecutor(): QueryExecutor }): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Rows of text as a table with the columns `names`, however many rows, bound as one parameter
 * (one a column on PostgreSQL): SQLite reads a JSON array of rows, PostgreSQL one array a
 * column. A batch's hundreds of rows as a VALUES list of a parameter each cost more to build,
 * bind and plan than the reading of them.
 */
export function textTable<N extends string>(
  db: Kysely<Tables>,
  names: readonly N[],
  rows: readonly (readonly string[])[],
) {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const columns = names.map((_, index) => rows.map((row) => row[index] ?? ''));
    return sql<Record<N, string>>`(select * from unnest(${sql.join(
      columns.map((column) => sql`${column}::text[]`),
    )}) as rows(${sql.join(names.map((name) => sql.id(name)))}))`;
  }
  return sql<Record<N, string>>`(select ${sql.join(
    names.map((name, index) => sql`value ->> ${sql.lit(index)} as ${sql.id(name)}`),
  )} from json_each(${JSON.stringify(rows)}))`;
}
