import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parentPort, threadId, Worker } from 'node:worker_threads';
import type { CountRollupsTable } from './schema';

// The counts' threads (sqlite-reader-thread.ts, postgres-count-thread.ts): what the keeper adds
// up and projects for a finished day, some fifty thousand rows at a million sign-ups, held the
// event loop that answers sign-ups for tens of milliseconds a day (docs/performance.md).

/** A thread's entries, each a module beside this one. */
type ThreadName = 'sqlite-reader-thread' | 'postgres-count-thread';

export type ThreadRequest = { id: number } & (
  { sql: string; parameters: readonly unknown[] } | { countDay: { date: string; until: string } }
);

/** The error as the thread's driver raised it: its message and code. */
export type ThreadError = { message: string; code: string | undefined };

type ThreadAnswer = { id: number; rows: unknown[] } | { id: number; error: ThreadError };

/** Answers request `id` from within a thread, with `result`'s rows or its error. */
export function answer(id: number, result: () => Promise<unknown[]>): Promise<void> {
  return result().then(
    (rows) => parentPort!.postMessage({ id, rows } satisfies ThreadAnswer),
    (error: { message: string; code?: string }) =>
      parentPort!.postMessage({
        id,
        error: { message: error.message, code: error.code },
      } satisfies ThreadAnswer),
  );
}

/**
 * Built, a thread is an entry of its own beside the server's chunks (scripts/build-server.ts);
 * from the sources (tests, `npm run dev`) it is TypeScript, bundled by esbuild once a process
 * into node_modules/.cache, where its packages resolve. (Loading tsx in every thread took a
 * quarter of a second a database, which the server suite paid in each of its tests.)
 */
function startThread(name: ThreadName, workerData: unknown): Worker {
  const entry = import.meta.url.endsWith('.ts')
    ? (bundled[name] ??= bundleThread(name))
    : new URL(`./${name}.js`, import.meta.url);
  return new Worker(entry, { workerData });
}

const bundled: Partial<Record<ThreadName, URL>> = {};

function bundleThread(name: ThreadName): URL {
  // esbuild is a development dependency: imported only from the sources, never when built.
  const require = createRequire(import.meta.url);
  const { buildSync } = require('esbuild') as typeof import('esbuild');
  const [output] = buildSync({
    entryPoints: [fileURLToPath(new URL(`./${name}.ts`, import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
  }).outputFiles;
  const text = output!.text;
  // Named by its content, and renamed into place whole: parallel test workers share the file.
  const file = `${name}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`;
  const dir = new URL('../../../node_modules/.cache/tasjeel/', import.meta.url);
  const target = new URL(file, dir);
  if (!existsSync(target)) {
    mkdirSync(dir, { recursive: true });
    const temporary = new URL(`${file}.${process.pid}.${threadId}`, dir);
    writeFileSync(temporary, text);
    renameSync(temporary, target);
  }
  return target;
}

type Pending = { resolve: (rows: unknown[]) => void; reject: (e: Error) => void };

/**
 * A counts' thread, started at the first request and again after it failed; each request
 * answered once. `toError` turns a thread's error back into its driver's own, so that "out of
 * reach" is told from a bug as on the main thread.
 */
export class CountsThread {
  #worker: Worker | undefined;
  #pending = new Map<number, Pending>();
  #next = 0;

  constructor(
    private readonly name: ThreadName,
    private readonly workerData: unknown,
    private readonly toError: (error: ThreadError) => Error,
  ) {}

  read(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    return this.#request({ sql, parameters });
  }

  /** A finished day counted by every kept key, as count-day.ts keeps it. */
  async countDay(date: string, until: string): Promise<CountRollupsTable[][]> {
    return (await this.#request({ countDay: { date, until } })) as never;
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #request(message: Omit<ThreadRequest, 'id'>): Promise<unknown[]> {
    const worker = (this.#worker ??= this.#start());
    const id = this.#next++;
    // A request in flight keeps the process alive (a script's count); an idle thread does not.
    if (this.#pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  #start(): Worker {
    const worker = startThread(this.name, this.workerData);
    worker.on('message', (answer: ThreadAnswer) => {
      const pending = this.#pending.get(answer.id);
      this.#pending.delete(answer.id);
      if (this.#pending.size === 0) worker.unref();
      if ('rows' in answer) pending?.resolve(answer.rows);
      else pending?.reject(this.toError(answer.error));
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
