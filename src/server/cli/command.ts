import { existsSync } from 'node:fs';
import { describeError, openDatabase } from '../db/database';
import type { Database } from '../db/schema';
import { pendingMigrations } from '../db/migrate';
import { loadDatabaseConfig } from '../env';

// What export.ts and report.ts share. It is its own module, not part of export.ts, because each
// of them is an entry of the server's build (scripts/build-server.ts): code that two entries
// import goes into a shared chunk, where export.ts's `import.meta.url` main guard would name
// the chunk and `npm run export` would do nothing.

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The --since option of the command lines: an ISO date or date-time; throws when it is not. */
export function parseSince(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const since = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(since.getTime())) {
    throw new Error(`--since must be an ISO date such as 2025-01-31, not "${value}"`);
  }
  return since;
}

// A cell starting with = + - @ (or a tab or carriage return) is run as a formula by Excel
// and LibreOffice; a leading quote makes it text. https://owasp.org/www-community/attacks/CSV_Injection
// Spreadsheets skip leading spaces and invisible format characters (U+200B, U+00A0, …) and
// read the full-width signs as the ASCII ones, so the first other character decides.
const formulaStart = /^[\p{White_Space}\p{Cf}]*[=+\-@\t\r＝＋－＠]/u;
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const safe = formulaStart.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * What the command lines share: opens DATABASE_URL (never creating a SQLite file that is not
 * there), refuses a schema that is behind this program (only the server migrates), runs
 * `read`, closes; returns the exit code (2 for a bad variable, 1 for no database, a schema
 * behind or a failed read, 0 otherwise).
 */
export async function readDatabase(
  env: Record<string, string | undefined>,
  err: Output['err'],
  read: (database: Database) => Promise<void>,
): Promise<number> {
  let database;
  try {
    database = loadDatabaseConfig(env);
  } catch (error) {
    err(`${(error as Error).message}\n`);
    return 2;
  }
  // Reading must not create an empty database where the server's one was expected.
  if (database.kind === 'sqlite' && database.file !== ':memory:' && !existsSync(database.file)) {
    err(
      `No database at ${database.file} (DATABASE_URL); start the server once, or point DATABASE_URL at it.\n`,
    );
    return 1;
  }
  const opened = await openDatabase(database);
  try {
    // The statements are prepared against the current schema; only the server migrates, so a
    // newer command line pointed at production never changes it.
    const pending = await pendingMigrations(opened);
    if (pending.length > 0) {
      err(
        `The database's schema is behind this program (missing ${pending.join(', ')}): start this version of the server once to migrate it, or use the version that matches the database.\n`,
      );
      return 1;
    }
    await read(opened);
    return 0;
  } catch (error) {
    err(`Could not read the registrations: ${describeError(error)}\n`);
    return 1;
  } finally {
    await opened.close();
  }
}
