import { Worker } from 'node:worker_threads';
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
import type { ReadAnswer, ReadRequest } from './sqlite-reader-thread';

// Kysely's reads of a SQLite file, run in a worker thread (sqlite-reader-thread.ts) with a
// read-only connection of its own: better-sqlite3 is synchronous, and a count of a period
// read on the event loop held every sign-up behind it (seconds, at a hundred thousand rows).
// WAL lets the thread read while the main thread writes; one thread, one read at a time.

/**
 * Built, the thread is an entry of its own beside the server's chunks (scripts/build-server.ts);
 * from the sources (tests, `npm run dev`) it is TypeScript, loaded through tsx.
 */
function startThread(file: string): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./sqlite-reader-thread.js', import.meta.url), {
      workerData: { file },
    });
  }
  // Resolved here: the thread's own resolution would start at the working directory.
  const tsx = import.meta.resolve('tsx/esm/api');
  const thread = new URL('./sqlite-reader-thread.ts', import.meta.url).href;
  return new Worker(
    `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(thread)}); })`,
    { eval: true, workerData: { file } },
  );
}

/** The thread, started at the first read and again after it failed; each read answered once. */
class ReaderThread {
  #worker: Worker | undefined;
  #pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }>();
  #next = 0;

  constructor(private readonly file: string) {}

  read(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    const worker = (this.#worker ??= this.#start());
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, sql, parameters } satisfies ReadRequest);
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #start(): Worker {
    const worker = startThread(this.file);
    worker.on('message', (answer: ReadAnswer) => {
      const pending = this.#pending.get(answer.id);
      this.#pending.delete(answer.id);
      if ('rows' in answer) pending?.resolve(answer.rows);
      // The driver's own error, so that "out of reach" is told from a bug as on the main thread.
      else
        pending?.reject(
          new BetterSqlite3.SqliteError(answer.error.message, answer.error.code ?? ''),
        );
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const { reject } of this.#pending.values()) reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the counts' thread stopped (exit code ${code})`)));
    // A server with no read in flight may exit without waiting for the thread.
    worker.unref();
    return worker;
  }
}

/** One connection, as Kysely's SqliteDriver has: a transaction has it to itself. */
class ReaderDriver implements Driver {
  #thread: ReaderThread;
  #held: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(file: string) {
    this.#thread = new ReaderThread(file);
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

/** Kysely's SQLite dialect, its queries run by the reader thread. */
export function readerDialect(file: string): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ReaderDriver(file),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
