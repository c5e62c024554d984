import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { CountsThread } from './counts-thread';
import type { CountRollupsTable } from './schema';

// Kysely's reads of a SQLite file, run in a worker thread (sqlite-reader-thread.ts) with a
// read-only connection of its own: better-sqlite3 is synchronous, and a count of a period
// read on the event loop held every sign-up behind it (seconds, at a hundred thousand rows).
// WAL lets the thread read while the main thread writes; one thread, one read at a time.

/** One connection, as Kysely's SqliteDriver has: a transaction has it to itself. */
class ReaderDriver implements Driver {
  #thread: CountsThread;
  #held: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(thread: CountsThread) {
    this.#thread = thread;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#held;
    let release!: () => void;
    this.#held = new Promise((resolve) => (release = resolve));
    await previous;
    this.#release = release;
    const thread = this.#thread;
    return {
      async executeQuery<R>({ sql, parameters }: CompiledQuery): Promise<QueryResult<R>> {
        return { rows: (await thread.read(sql, parameters)) as R[] };
      },
      // eslint-disable-next-line require-yield
      async *streamQuery() {
        throw new Error('the counts read whole answers');
      },
    };
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    this.#release?.();
  }

  async destroy(): Promise<void> {
    await this.#thread.close();
  }
}

/**
 * The counts' thread of a SQLite file: Kysely's SQLite dialect, its queries run by the thread,
 * and the keeper's count of a finished day. Kysely's destroy stops the thread.
 */
export function readerThread(file: string): {
  dialect: Dialect;
  countDay: (date: string, until: string) => Promise<CountRollupsTable[][]>;
} {
  // The driver's own error, so that "out of reach" is told from a bug as on the main thread.
  const thread = new CountsThread(
    'sqlite-reader-thread',
    { file },
    (error) => new BetterSqlite3.SqliteError(error.message, error.code ?? ''),
  );
  return {
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new ReaderDriver(thread),
      createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
    countDay: (date, until) => thread.countDay(date, until),
  };
}
