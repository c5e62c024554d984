import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { describeError, openDatabase } from './db/database';
import { registrationColumns, type Database } from './db/schema';
import { pendingMigrations } from './db/migrate';
import { loadConfig } from './env';
import {
  createRegistrationRepository,
  type StoredRegistration,
} from './registrations/registration-repository';

// The export is the table: its columns, in its order.
export const exportFields = registrationColumns;

export type ExportFormat = 'csv' | 'jsonl';

const usage =
  'usage: npm run export -- --format csv|jsonl [--since YYYY-MM-DD[THH:MM:SSZ]] [--output FILE]';

function toRecord(row: StoredRegistration): Record<(typeof exportFields)[number], string | null> {
  return {
    id: row.id,
    created_at: row.createdAt,
    name: row.name,
    email: row.email,
    phone: row.phone,
    notes: row.notes,
    marketing_id: row.marketingId,
    package_key: row.packageKey,
    source: row.source,
    repeat_of: row.repeatOf,
  };
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
 * The leads as a file: CSV (RFC 4180, CRLF, with a UTF-8 byte order mark so that Excel reads
 * the Arabic as Arabic) or JSON Lines (one object a line, null for an absent value).
 */
export function formatRegistrations(rows: StoredRegistration[], format: ExportFormat): string {
  const records = rows.map(toRecord);
  if (format === 'jsonl') return records.map((record) => `${JSON.stringify(record)}\n`).join('');
  const lines = [
    exportFields.join(','),
    ...records.map((record) => exportFields.map((field) => csvCell(record[field])).join(',')),
  ];
  return `\uFEFF${lines.map((line) => `${line}\r\n`).join('')}`;
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

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The command line: returns the exit code (2 for bad arguments, 1 for no database). */
export async function runExport(
  argv: string[],
  env: Record<string, string | undefined>,
  { out, err }: Output,
): Promise<number> {
  let format: ExportFormat;
  let since: Date | undefined;
  let output: string | undefined;
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        format: { type: 'string' },
        since: { type: 'string' },
        output: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.format !== 'csv' && values.format !== 'jsonl') {
      throw new Error('--format must be csv or jsonl');
    }
    format = values.format;
    since = parseSince(values.since);
    output = values.output;
  } catch (error) {
    err(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }

  return readDatabase(env, err, async (opened) => {
    const rows = await createRegistrationRepository(opened).list({ since });
    const text = formatRegistrations(rows, format);
    if (output === undefined) return out(text);
    // Personal data: readable by the owner only, also when the file was already there.
    await writeFile(output, text, { mode: 0o600 });
    await chmod(output, 0o600);
  });
}

/**
 * What the command lines share: opens DATABASE_URL (never creating a SQLite file that is not
 * there), brings its schema up to date, runs `read`, closes; returns the exit code (2 for a bad
 * variable, 1 for no database or a failed read, 0 otherwise).
 */
export async function readDatabase(
  env: Record<string, string | undefined>,
  err: Output['err'],
  read: (database: Database) => Promise<void>,
): Promise<number> {
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    err(`${(error as Error).message}\n`);
    return 2;
  }
  const { database } = config;
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await runExport(process.argv.slice(2), process.env, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
}
