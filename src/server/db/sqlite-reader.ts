import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { threadId, Worker } from 'node:worker_threads';
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
import type { CountRollupsTable } from './schema';
import type { ReadAnswer, ReadRequest } from './sqlite-reader-thread';

// Kysely's reads of a SQLite file, run in a worker thread (sqlite-reader-thread.ts) with a
// read-only connection of its own: better-sqlite3 is synchronous, and a count of a period
// read on the event loop held every sign-up behind it (seconds, at a hundred thousand rows).
// WAL lets the thread read while the main thread writes; one thread, one read at a time.

/**
 * Built, the thread is an entry of its own beside the server's chunks (scripts/build-server.ts);
 * from the sources (tests, `npm run dev`) it is TypeScript, bundled by esbuild once a process
 * into node_modules/.cache, where its packages resolve. (Loading tsx in every thread took a
 * quarter of a second a database, which the server suite paid in each of its tests.)
 */
function startThread(file: string): Worker {
  const thread = import.meta.url.endsWith('.ts')
    ? (bundledThread ??= bundleThread())
    : new URL('./sqlite-reader-thread.js', import.meta.url);
  return new Worker(thread, { workerData: { file } });
}

let bundledThread: URL | undefined;

function bundleThread(): URL {
  // esbuild is a development dependency: imported only from the sources, never when built.
  const require = createRequire(import.meta.url);
  const { buildSync } = require('esbuild') as typeof import('esbuild');
  const [output] = buildSync({
    entryPoints: [fileURLToPath(new URL('./sqlite-reader-thread.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
  }).outputFiles;
  const text = output!.text;
  // Named by its content, and renamed into place whole: parallel test workers share the file.
  const name = `sqlite-reader-thread-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`;
  const dir = new URL('../../../node_modules/.cache/tasjeel/', import.meta.url);
  const target = new URL(name, dir);
  if (!existsSync(target)) {
    mkdirSync(dir, { recursive: true });
    const temporary = new URL(`${name}.${process.pid}.${threadId}`, dir);
    writeFileSync(temporary, text);
    renameSync(temporary, target);
  }
  return target;
}

type Pending = { resolve: (rows: unknown[]) => void; reject: (e: Error) => void };

/**
 * The thread, started at the first request and again after it failed; each request answered
 * once, in the order sent.
 */
class ReaderThread {
  #worker: Worker | undefined;
  #pending = new Map<number, Pending>();
  #next = 0;

  constructor(private readonly file: string) {}

  read(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    return this.#request((id) => ({ id, sql, parameters }));
  }

  /** A finished day counted by every kept key, as count-day.ts keeps it. */
  async countDay(date: string, until: string): Promise<CountRollupsTable[][]> {
    return (await this.#request((id) => ({ id, countDay: { date, until } }))) as never;
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #request(message: (id: number) => ReadRequest): Promise<unknown[]> {
    const worker = (this.#worker ??= this.#start());
    const id = this.#next++;
    // A request in flight keeps the process alive (a script's count); an idle thread does not.
    if (this.#pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage(message(id));
    });
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

  constructor(thread: ReaderThread) {
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
  const thread = new ReaderThread(file);
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
