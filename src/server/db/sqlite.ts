import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';

/** Everything specific to SQLite lives here: the driver and the durability settings. */
export function openSqlite<T>(file: string): Kysely<T> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = new SqliteDatabase(file);
  // WAL lets the export read while the server writes; synchronous=FULL syncs the WAL on every
  // commit so an answered sign-up survives a power loss (NORMAL could lose the last ones).
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  // A second process (the export) holding a lock makes writers wait instead of failing.
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  return new Kysely<T>({ dialect: new SqliteDialect({ database }) });
}
