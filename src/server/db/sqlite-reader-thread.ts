import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { countDay } from '../count-day';
import { answer, type ThreadRequest } from './counts-thread';
import type { CountRollupsTable, Tables } from './schema';

// The counts' thread (sqlite-reader.ts): its own read-only connection to the database file,
// so that a count of a million rows never holds the event loop that answers sign-ups. It only
// reads: a writer here would hold SQLite's one write lock, and the main thread's busy wait for
// it would block that loop again. It runs the main thread's statements one at a time, and
// counts a finished day for the keeper (count-day.ts) between them.

const { file } = workerData as { file: string };
const connection = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
// A checkpoint or a schema change may hold the file for a moment: wait, as the writer does.
connection.pragma('busy_timeout = 5000');
const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: connection }) });

// The programme's reads are a few texts, run again and again.
const prepared = new Map<string, BetterSqlite3.Statement>();

function run(sql: string, parameters: readonly unknown[]): unknown[] {
  let statement = prepared.get(sql);
  if (statement === undefined) {
    if (prepared.size >= 200) prepared.delete(prepared.keys().next().value!);
    statement = connection.prepare(sql);
    prepared.set(sql, statement);
  }
  // begin, commit and rollback are the only statements that return no rows.
  return statement.reader ? statement.all(parameters) : (statement.run(parameters), []);
}

/** A day's count, in a read transaction of its own: its rows agree with each other. */
async function count(date: string, until: string): Promise<CountRollupsTable[][]> {
  return db.transaction().execute((trx) => countDay(trx, date, until));
}

// A day waits while the main thread has a transaction open here: counted inside it, it would
// read that transaction's older snapshot. Requests are taken one at a time, in order.
const waiting: { id: number; date: string; until: string }[] = [];
let queue = Promise.resolve();

parentPort!.on('message', (request: ThreadRequest) => {
  queue = queue.then(async () => {
    if ('countDay' in request) waiting.push({ id: request.id, ...request.countDay });
    else await answer(request.id, async () => run(request.sql, request.parameters));
    while (waiting.length > 0 && !connection.inTransaction) {
      const { id, date, until } = waiting.shift()!;
      await answer(id, () => count(date, until));
    }
  });
});
