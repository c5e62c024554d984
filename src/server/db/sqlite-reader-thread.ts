import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

// The counts' thread (sqlite-reader.ts): its own read-only connection to the database file,
// so that a count of a million rows never holds the event loop that answers sign-ups. It only
// reads: a writer here would hold SQLite's one write lock, and the main thread's busy wait for
// it would block that loop again.

export interface ReadRequest {
  id: number;
  sql: string;
  parameters: readonly unknown[];
}

export type ReadAnswer =
  | { id: number; rows: unknown[] }
  | { id: number; error: { message: string; code: string | undefined } };

const { file } = workerData as { file: string };
const connection = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
// A checkpoint or a schema change may hold the file for a moment: wait, as the writer does.
connection.pragma('busy_timeout = 5000');

// The programme's reads are a few texts, run again and again.
const prepared = new Map<string, BetterSqlite3.Statement>();

parentPort!.on('message', ({ id, sql, parameters }: ReadRequest) => {
  try {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      if (prepared.size >= 200) prepared.delete(prepared.keys().next().value!);
      statement = connection.prepare(sql);
      prepared.set(sql, statement);
    }
    // begin, commit and rollback are the only statements that return no rows.
    const rows = statement.reader ? statement.all(parameters) : (statement.run(parameters), []);
    parentPort!.postMessage({ id, rows } satisfies ReadAnswer);
  } catch (error) {
    const { message, code } = error as { message: string; code?: string };
    parentPort!.postMessage({ id, error: { message, code } } satisfies ReadAnswer);
  }
});
