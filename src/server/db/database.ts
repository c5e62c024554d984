import type { Kysely } from 'kysely';
import type { DatabaseConfig } from '../env';
import { openSqlite } from './sqlite';

// Column types as stored. created_at is UTC ISO-8601 text so that ordering and the 24-hour
// window compare as plain strings on every database kind.
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

export interface Database {
  registrations: RegistrationsTable;
}

/** The one switch on the database kind; PostgreSQL will be a second branch here. */
export function openDatabase(config: DatabaseConfig): Kysely<Database> {
  return openSqlite<Database>(config.file);
}
