import { parentPort, workerData } from 'node:worker_threads';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { countDay } from '../count-day';
import { answer, type ThreadRequest } from './counts-thread';
import type { Tables } from './schema';

// The keeper's thread on PostgreSQL (postgres.ts): the database counts a finished day, and this
// thread adds the count up and projects it onto the kept keys, off the event loop that answers
// sign-ups. One connection of its own, with the counts' settings and time-outs.

const { url, statementTimeoutMs } = workerData as { url: string; statementTimeoutMs: number };
const pool = new pg.Pool({
  connectionString: url,
  max: 1,
  application_name: 'tasjeel-keeper',
  connectionTimeoutMillis: 10_000,
  statement_timeout: statementTimeoutMs,
  query_timeout: statementTimeoutMs + 1_000,
  idle_in_transaction_session_timeout: 10_000,
  keepAlive: true,
});
// A connection lost is the query's failure, answered to the keeper; the pool opens another.
pool.on('error', () => {}).on('connect', (client) => client.on('error', () => {}));
const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });

parentPort!.on('message', (request: ThreadRequest) => {
  if (!('countDay' in request)) throw new Error('the keeper’s thread only counts days');
  const { date, until } = request.countDay;
  // One snapshot: the day's rows by every key agree with each other.
  void answer(request.id, () =>
    db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((trx) => countDay(trx, date, until)),
  );
});
