import type { DatabaseConfig } from '../env';
import type { Database } from './schema';

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

/** Runs `run`, telling a database out of reach (503) from a bug (500). */
export async function guarded<T>(
  database: Database,
  run: () => Promise<T>,
  onUnavailable?: () => void,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!database.isUnavailable(error)) throw error;
    onUnavailable?.();
    throw new DatabaseUnavailableError(error);
  }
}

/**
 * The one switch on the database kind. `onConnectionLost` hears of pooled connections lost (a
 * restart, a failover, a network cut); the pool drops them and opens new ones when next needed.
 * Only the configured kind's driver is loaded: pg would cost a SQLite server about 8 MB.
 */
export async function openDatabase(
  config: DatabaseConfig,
  onConnectionLost: (error: Error) => void = () => {},
): Promise<Database> {
  if (config.kind === 'sqlite') return (await import('./sqlite')).openSqlite(config.file);
  const { openPostgres } = await import('./postgres');
  return openPostgres(config.url, config.poolSize, onConnectionLost);
}
