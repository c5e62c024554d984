import type { Kysely } from 'kysely';
import type { DatabaseConfig } from '../env';
import type { PostgresDatabase } from './postgres';
import type { SqliteDatabase } from './sqlite';

// Column types as stored. created_at is UTC ISO-8601 text on both kinds, so that ordering and
// the 24-hour window compare as plain strings and the export prints the same text from either.
export interface RegistrationsTable {
  id: string;
  created_at: string;
  name: string;
  email: string | null;
  phone: string;
  notes: string;
  marketing_id: string | null;
  package_key: string | null;
  source: string | null;
}

/** Its columns in table order: the insert's column list and the export's fields. */
export const registrationColumns = [
  'id',
  'created_at',
  'name',
  'email',
  'phone',
  'notes',
  'marketing_id',
  'package_key',
  'source',
] as const satisfies (keyof RegistrationsTable)[];

// One row per UTC day (YYYY-MM-DD), link and visitor; '' for no marketer or no package.
export interface VisitsTable {
  day: string;
  marketing_id: string;
  package_key: string;
  visitor_hash: string;
  count: number;
}

export interface VisitSaltsTable {
  day: string;
  salt: string;
}

export interface Database {
  registrations: RegistrationsTable;
  visits: VisitsTable;
  visit_salts: VisitSaltsTable;
}

/**
 * An open database: Kysely for the migrations, the raw driver for the repository's prepared
 * statements, and how to tell "the database is out of reach" from a bug.
 */
export interface DatabaseHandle<K extends DatabaseConfig['kind'], Driver> {
  kind: K;
  /** Which database, for messages: never the password. */
  where: string;
  db: Kysely<Database>;
  driver: Driver;
  isUnavailable: (error: unknown) => boolean;
  /** Closes every connection; calling it again does nothing. */
  close: () => Promise<void>;
}

export type OpenDatabase = SqliteDatabase | PostgresDatabase;

/** The repository could not reach the database (down, unreachable, timed out or locked). */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`database unavailable: ${describeError(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/** One line for any error, including Node's AggregateError whose own message is empty. */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return error.errors.map(describeError).join('; ');
  }
  if (error instanceof Error) {
    const { code } = error as { code?: unknown };
    return typeof code === 'string' && !error.message.includes(code)
      ? `${code}: ${error.message}`
      : error.message;
  }
  return String(error);
}

/**
 * The one switch on the database kind. `onIdleError` hears of pooled connections lost while
 * idle (a restart, a failover); the pool drops them and opens new ones when next needed.
 * Only the configured kind's driver is loaded: pg would cost a SQLite server about 8 MB.
 */
export async function openDatabase(
  config: DatabaseConfig,
  onIdleError: (error: Error) => void = () => {},
): Promise<OpenDatabase> {
  if (config.kind === 'sqlite') return (await import('./sqlite')).openSqlite(config.file);
  const { openPostgres } = await import('./postgres');
  return openPostgres(config.url, config.poolSize, onIdleError);
}
