import { PostgresAdapter, sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database, Tables } from './schema';

// Where SQLite and PostgreSQL truly differ, each difference once. Every other query is the same
// Kysely code on both.

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
  if (database.kind === 'postgres') {
    return database.db.transaction().execute(async (trx) => {
      // One advisory lock a name, all in one statement and in one order, so that two
      // transactions cannot deadlock. Each later statement of the transaction (READ COMMITTED)
      // reads on a fresh snapshot, which sees every commit made before the lock was granted.
      if (locks.length > 0) {
        await sql`select pg_advisory_xact_lock(key) from (
            select distinct hashtextextended(name, 0) as key from unnest(${locks}::text[]) as name
            order by key) as keys`.execute(trx);
      }
      return work(trx);
    });
  }
  // SQLite has one writer: BEGIN IMMEDIATE takes its write lock at once, which covers every
  // name. A deferred BEGIN would read first and could then fail to upgrade (SQLITE_BUSY) when
  // another process wrote in between.
  return database.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
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

/** Whether a migration runs on PostgreSQL (a migration is given Kysely alone). */
export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
