import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import type { Database, Tables } from './schema';
import { readerThread } from './sqlite-reader';

// Another process held the write lock past busy_timeout, or the disk failed or filled up: the
// request may succeed later. Anything else (a closed handle, bad SQL) is a bug, answered 500.
const unavailableCodes = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL)/;

/** Everything specific to SQLite lives here: the driver and the durability settings. */
export function openSqlite(file: string): Database {
  if (file !== ':memory:') {
    // Personal data: only the server's own user may read it. SQLite gives the -wal and -shm
    // files the database file's mode.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    closeSync(openSync(file, 'a', 0o600));
  }
  const driver = new BetterSqlite3(file);
  // WAL lets the export read while the server writes; synchronous=FULL syncs the WAL on every
  // commit so an answered sign-up survives a power loss (NORMAL could lose the last ones).
  driver.pragma('journal_mode = WAL');
  driver.pragma('synchronous = FULL');
  // A second process (the export) holding a lock makes writers wait instead of failing.
  driver.pragma('busy_timeout = 5000');
  driver.pragma('foreign_keys = ON');
  // Deleted rows (a day's visitor hashes, an erased person) are overwritten, not left in free
  // pages of the file for anyone who reads it raw.
  driver.pragma('secure_delete = ON');
  const db = new Kysely<Tables>({
    dialect: new SqliteDialect({ database: reusingStatements(driver) }),
  });
  const thread = file === ':memory:' ? null : readerThread(file);
  const reads = thread === null ? db : new Kysely<Tables>({ dialect: thread.dialect });
  return {
    kind: 'sqlite',
    where: `SQLite at ${file}`,
    db,
    reads,
    countDay: thread?.countDay ?? null,
    migrations: db,
    poolState: null,
    writers: 1,
    isUnavailable: (error) =>
      error instanceof BetterSqlite3.SqliteError && unavailableCodes.test(error.code),
    close: async () => {
      // Kysely closes the driver, but only once it has run a query; closing twice is harmless.
      if (reads !== db) await reads.destroy();
      await db.destroy();
      if (driver.open) driver.close();
    },
  };
}

// How many statements are kept prepared: a sign-up batch's insert has one text per batch size.
const preparedLimit = 200;

/**
 * Kysely's SQLite driver prepares every query it runs, and preparing was a sixth of the time a
 * sign-up spent in SQLite (docs/performance.md). Its statements are kept by their text and run
 * again, the oldest dropped past the limit. Kysely runs one query at a time on the one
 * connection, so a kept statement is never in use when it is run.
 */
function reusingStatements(driver: BetterSqlite3.Database): SqliteDatabase {
  const prepared = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => driver.close(),
    prepare(text) {
      let statement = prepared.get(text);
      if (statement === undefined) {
        if (prepared.size >= preparedLimit) prepared.delete(prepared.keys().next().value!);
        statement = driver.prepare(text);
        prepared.set(text, statement);
      }
      return statement;
    },
  };
}
