import { Kysely, PostgresDialect } from 'kysely';
import { DatabaseError, Pool, type PoolClient } from 'pg';
import { CountsThread, type ThreadError } from './counts-thread';
import type { Database, Tables } from './schema';

// SQLSTATEs that mean "try again later", not "this request is wrong": connection exceptions
// (08), insufficient resources such as too many connections (53), the server shutting down
// or starting (57P01-03), a statement or lock timeout (57014, 55P03), a failover that left us
// on a read-only replica (25006), and a deadlock or serialization failure (40001, 40P01).
// https://www.postgresql.org/docs/current/errcodes-appendix.html
const unavailableStates = /^(08|53|57P0[123]$|57014$|55P03$|25006$|40001$|40P01$)/;

// Errors raised by the driver itself rather than the server: refused or reset sockets, DNS,
// and pg's own connection and read timeouts, which carry no code.
const unreachable =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

/**
 * No new connection could be had: refused by a database that answers but takes no one (not
 * accepting connections, ALLOW_CONNECTIONS false: 55000; starting up or shutting down: 57P03;
 * too many: 53300; whatever SQLSTATE it refuses with), or not answering at all. Either way the
 * database is out of reach: no request could have made the attempt fail.
 */
class NoConnection extends Error {
  constructor(cause: unknown) {
    super(
      `no connection to the database could be opened: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * The pool as Kysely takes it, a connection it could not open told apart as NoConnection; a pool
 * this server closed is a bug, not an outage.
 */
function refusing(pool: Pool) {
  return {
    connect: () =>
      pool.connect().catch((error: unknown) => {
        throw pool.ended ? error : new NoConnection(error);
      }),
    end: () => pool.end(),
  };
}

function isUnavailable(error: unknown): boolean {
  if (error instanceof NoConnection) return true;
  if (error instanceof DatabaseError) return unavailableStates.test(error.code ?? '');
  if (error instanceof AggregateError) return error.errors.every(isUnavailable);
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  return (typeof code === 'string' && /^E[A-Z]+$/.test(code)) || unreachable.test(error.message);
}

/**
 * The counts' connections: one for the keeper, two for answers. How long one of their statements
 * may run, and an answer may wait for one of them (behind another answer's counts).
 */
const readPoolSize = 3;
const readStatementTimeoutMs = 30_000;
const readConnectionWaitMs = 10_000;

// PostgreSQL compiles a statement it expects to read many rows (the programme's count of a
// period not kept yet, a million leads) before running it: measured, that made each of those
// counts 1.5-2.5 s slower, past the 5 s time-out, and none of ours faster.
const noJit = '-c jit=off';

/**
 * The URL with these settings added to any its `options` already give (a search_path, say):
 * sent at connect, so that they hold from a connection's first statement. pg takes `options`
 * from the URL over the pool's own, hence here.
 */
function withSettings(url: string, settings: string): string {
  const withOptions = new URL(url);
  const given = withOptions.searchParams.get('options');
  withOptions.searchParams.set('options', given === null ? settings : `${given} ${settings}`);
  return withOptions.href;
}

/**
 * A thread's error as the driver raised it: a SQLSTATE as the server's DatabaseError, anything
 * else (a refused socket, a time-out) as an error with its code and message, which
 * isUnavailable tells apart as it does on the main thread.
 */
function threadError({ message, code }: ThreadError): Error {
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    return Object.assign(new DatabaseError(message, 0, 'error'), { code });
  }
  return Object.assign(new Error(message), { code });
}

/** Everything specific to PostgreSQL lives here: the pool and its time limits. */
export function openPostgres(
  url: string,
  poolSize: number,
  onConnectionLost: (error: Error) => void,
): Database {
  const pool = new Pool({
    connectionString: withSettings(url, noJit),
    max: poolSize,
    application_name: 'tasjeel',
    // Bounded waits, so that an unreachable database answers a request with 503 in seconds
    // rather than holding it: 3 s to connect (or to wait for a free connection in the pool),
    // 5 s for the server to run a statement (an advisory-lock wait included), and 6 s before
    // the client gives up on a server that does not answer at all (a network cut).
    connectionTimeoutMillis: 3_000,
    statement_timeout: 5_000,
    query_timeout: 6_000,
    // A transaction left open by a stalled instance must not hold its lock for long.
    idle_in_transaction_session_timeout: 10_000,
    keepAlive: true,
  });
  // Without a listener, a connection that dies (a restart, a failover, a network cut) would
  // crash the process. The pool listens to the idle ones; Kysely holds a connection for a whole
  // transaction without listening, so each connection gets its own listener too. The query in
  // flight fails (503), and the pool drops the connection and opens a new one when next needed.
  // (The pool passes an idle one's error on to its own 'error' too: heard once, here.)
  const listen = (client: PoolClient) => client.on('error', onConnectionLost);
  pool.on('error', () => {}).on('connect', listen);

  // The migrations get a connection of their own without the requests' time limits: a long
  // migration, or an instance waiting for another's to finish, must not be cut off at 5 s.
  // Only connecting stays bounded, so that start-up fails fast when nothing answers.
  const migrations = new Pool({
    connectionString: url,
    max: 1,
    application_name: 'tasjeel-migrate',
    connectionTimeoutMillis: 3_000,
    keepAlive: true,
  });
  migrations.on('error', () => {}).on('connect', listen);
  // The counts' pool (docs/architecture.md): connections of their own, so that a count never
  // takes one a sign-up waits for; no parallel workers, so that a count uses one of the
  // database's cores and leaves the others to the sign-ups; a longer statement time-out, as
  // a period not kept yet (after a deploy) is counted whole, and holds no lock a writer waits for.
  const readsUrl = withSettings(url, `${noJit} -c max_parallel_workers_per_gather=0`);
  const readPool = new Pool({
    connectionString: readsUrl,
    max: readPoolSize,
    application_name: 'tasjeel-counts',
    connectionTimeoutMillis: readConnectionWaitMs,
    statement_timeout: readStatementTimeoutMs,
    query_timeout: readStatementTimeoutMs + 1_000,
    idle_in_transaction_session_timeout: 10_000,
    keepAlive: true,
  });
  readPool.on('error', () => {}).on('connect', listen);
  // The keeper's count of a finished day, on a connection of its own in a thread of its own.
  const keeper = new CountsThread(
    'postgres-count-thread',
    { url: readsUrl, statementTimeoutMs: readStatementTimeoutMs },
    threadError,
  );
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: refusing(pool) }) });
  const reads = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: refusing(readPool) }) });
  const migrationsDb = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: migrations }) });

  let closed: Promise<void> | undefined;
  return {
    kind: 'postgres',
    where: `PostgreSQL at ${new URL(url).host}${new URL(url).pathname}`,
    db,
    reads,
    countDay: (date, until) => keeper.countDay(date, until),
    migrations: migrationsDb,
    poolState: () => ({
      inUse: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    // As many batches at once as the pool has connections; more sign-ups wait and go together.
    writers: poolSize,
    isUnavailable,
    // Kysely ends a pool only once it has used it; a pool it never used is ended here, so that
    // no query runs after close.
    close: () =>
      (closed ??= Promise.all([
        db.destroy(),
        reads.destroy(),
        migrationsDb.destroy(),
        keeper.close(),
      ]).then(async () => {
        if (!pool.ended) await pool.end();
        if (!readPool.ended) await readPool.end();
      })),
  };
}
