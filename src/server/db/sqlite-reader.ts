import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
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
 * from the sources (tests, `npm run dev`) it is TypeScript, bundled once a process by esbuild.
 * (Loading tsx in every thread took a quarter of a second a database, which the server suite
 * paid in each of its tests.)
 */
function startThread(file: string): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./sqlite-reader-thread.js', import.meta.url), {
      workerData: { file },
    });
  }
  return new Worker((threadSource ??= bundleThread()), { eval: true, workerData: { file } });
}

let threadSource: string | undefined;

function bundleThread(): string {
  // esbuild is a development dependency: imported only from the sources, never when built.
  const require = createRequire(import.meta.url);
  const { buildSync } = require('esbuild') as typeof import('esbuild');
  const [output] = buildSync({
    entryPoints: [fileURLToPath(new URL('./sqlite-reader-thread.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    // The driver's native module, resolved from here rather than the working directory.
    external: ['better-sqlite3'],
  }).outputFiles;
  return output!.text.replaceAll(
    'require("better-sqlite3")',
    `require(${JSON.stringify(require.resolve('better-sqlite3'))})`,
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
    // A read in flight keeps the process alive (a script's count); an idle thread does not.
    if (this.#pending.size === 0) worker.ref();
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
      if (this.#pending.size === 0) worker.unref();
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
