// npm run test:crash: SIGKILL at random moments under a stream of sign-ups, then SIGTERM under
// load. Every sign-up answered 2xx must be in the database afterwards. Prints its figures and
// exits 1 if any check fails.
import { request as httpRequest, Agent } from 'node:http';
import SqliteDatabase from 'better-sqlite3';
import { shutdownLimitMs } from '../src/server/server-limits';
import type { ServerProcess } from '../testing/server-process';
import {
  finishRun,
  createReport,
  describeOutcome,
  registerPath,
  send,
  signUp,
  sleep,
  startServer,
  tally,
  prepareRun,
  type Outcome,
} from './harness';

const rounds = 6;
const concurrency = 8;

const { dir, distDir, databaseFile, logFile } = await prepareRun('crash');
const started = performance.now();
const report = createReport('crash: SIGKILL and SIGTERM under load');

/** phone -> id of every sign-up the server answered 2xx. */
const answered = new Map<string, string>();
let next = 0;

/**
 * `concurrency` loops that each send one sign-up after another until `running()` is false.
 * Returns every outcome; a 2xx is recorded in `answered`.
 */
async function stream(server: ServerProcess, agent: Agent, running: () => boolean) {
  const outcomes: (Outcome & { phone: string })[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (running()) {
        const body = signUp(next++, 0);
        const outcome = await send({
          port: server.port,
          body: JSON.stringify(body),
          agent,
          timeoutMs: 5_000,
        });
        outcomes.push({ ...outcome, phone: body.phone });
        if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) {
          answered.set(body.phone, (JSON.parse(outcome.body!) as { id: string }).id);
        }
        // A refused connection fails at once; do not spin on it.
        if (outcome.error !== undefined) await sleep(10);
      }
    }),
  );
  return outcomes;
}

function storedPhones(phones: string[]): number {
  const db = new SqliteDatabase(databaseFile, { readonly: true });
  try {
    const find = db.prepare<[string], { id: string }>(
      'select id from registrations where phone = ?',
    );
    return phones.filter((phone) => find.get(phone) !== undefined).length;
  } finally {
    db.close();
  }
}

function checkStored(label: string) {
  const db = new SqliteDatabase(databaseFile, { readonly: true });
  try {
    const find = db.prepare<[string], { id: string }>(
      'select id from registrations where phone = ?',
    );
    const missing = [...answered].filter(([phone, id]) => find.get(phone)?.id !== id);
    const rows = (db.prepare('select count(*) as n from registrations').get() as { n: number }).n;
    const integrity = db.pragma('integrity_check', { simple: true });
    report.figure(`${label}: answered 2xx / rows stored`, `${answered.size} / ${rows}`);
    report.check(
      `${label}: every answered sign-up is stored`,
      missing.length === 0,
      `${missing.length} missing`,
    );
    report.check(`${label}: PRAGMA integrity_check`, integrity === 'ok', String(integrity));
    return rows;
  } finally {
    db.close();
  }
}

// 1. SIGKILL at a random moment, then restart on the same file.
for (let round = 1; round <= rounds; round += 1) {
  const server = await startServer({ databaseFile, distDir, logFile });
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let running = true;
  const killAfterMs = Math.round(300 + Math.random() * 1_500);
  const streaming = stream(server, agent, () => running);
  await sleep(killAfterMs);
  server.child.kill('SIGKILL');
  const exit = await server.exited;
  running = false;
  const outcomes = await streaming;
  agent.destroy();
  const statuses: Record<string, number> = {};
  for (const outcome of outcomes) tally(statuses, describeOutcome(outcome));
  report.figure(
    `round ${round}`,
    `started in ${Math.round(server.startMs)} ms, killed after ${killAfterMs} ms (${exit.signal}), ` +
      `outcomes ${JSON.stringify(statuses)}`,
  );
  // A 503 (the server shedding load, say in its first second) is an answer too: not stored,
  // and the client told to retry. Nothing else may come back.
  const unexpected = outcomes.filter(
    (o) => o.status !== undefined && o.status !== 201 && !(o.status === 503 && o.retryAfter),
  );
  report.check(
    `round ${round}: every answer before the kill was 201 (or 503 with Retry-After)`,
    unexpected.length === 0,
  );
}
const rowsAfterKills = checkStored(`after ${rounds} SIGKILLs`);
report.figure('sign-ups sent during the kill rounds', next);
report.figure(
  'stored but unanswered (committed, the answer lost with the process)',
  rowsAfterKills - answered.size,
);

// 2. SIGTERM under load: a request in flight (its body half sent), a stream of sign-ups.
{
  const server = await startServer({ databaseFile, distDir, logFile });
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let running = true;
  const streaming = stream(server, agent, () => running);
  await sleep(1_000);

  // The slow request: headers and half the body now, the rest after SIGTERM.
  const slowBody = JSON.stringify(signUp(next++, 0));
  const slowPhone = (JSON.parse(slowBody) as { phone: string }).phone;
  const half = Math.floor(slowBody.length / 2);
  const slow = new Promise<Outcome>((resolve) => {
    const start = performance.now();
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: registerPath,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(slowBody),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode, body: text, start, end: performance.now() }),
        );
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message, start, end: performance.now() }),
    );
    req.write(slowBody.slice(0, half));
    setTimeout(() => req.end(slowBody.slice(half)), 1_500);
  });
  await sleep(300);

  const sigterm = performance.now();
  server.child.kill('SIGTERM');
  const exit = await server.exited;
  const exitMs = exit.at - sigterm;
  // Keep sending a moment after the exit: those must be refused at once, not hang.
  await sleep(300);
  running = false;
  const outcomes = await streaming;
  const slowOutcome = await slow;
  agent.destroy();
  if (slowOutcome.status === 201) {
    answered.set(slowPhone, (JSON.parse(slowOutcome.body!) as { id: string }).id);
  }

  const inFlight = outcomes.filter((o) => o.start < sigterm && o.end >= sigterm);
  const before = outcomes.filter((o) => o.end < sigterm);
  const after = outcomes.filter((o) => o.start >= sigterm);
  const count = (list: Outcome[]) => {
    const statuses: Record<string, number> = {};
    for (const outcome of list) tally(statuses, describeOutcome(outcome));
    return statuses;
  };
  report.figure('SIGTERM: answered before it', count(before));
  report.figure('SIGTERM: in flight at it (sent before, answered after)', count(inFlight));
  report.figure('SIGTERM: sent after it', count(after));
  report.figure(
    'SIGTERM: the half-sent request (rest sent 1.2 s after SIGTERM)',
    describeOutcome(slowOutcome),
  );
  report.figure(
    'SIGTERM: exit',
    `code ${exit.code} after ${Math.round(exitMs)} ms (grace ${shutdownLimitMs} ms)`,
  );
  report.check('SIGTERM: the half-sent request finished with 201', slowOutcome.status === 201);
  report.check(
    'SIGTERM: requests in flight finished 2xx',
    inFlight.every((o) => o.status !== undefined && o.status < 300),
  );
  // A reset is a request written on a kept-alive connection as the server closed it (idle):
  // the HTTP/1.1 keep-alive race, which browsers retry. It must not have been processed.
  const unanswered = outcomes.filter((o) => o.end >= sigterm && o.status === undefined);
  const processedUnanswered = storedPhones(unanswered.map((o) => o.phone));
  const refusedCleanly = (o: Outcome) =>
    (o.status !== undefined && (o.status < 300 || o.status === 503)) ||
    ((o.error === 'ECONNREFUSED' || o.error === 'ECONNRESET') && o.end - o.start < 1_000);
  report.figure('SIGTERM: unanswered requests that were stored anyway', processedUnanswered);
  report.check(
    'SIGTERM: later requests answered or refused at once (2xx, 503, refused or reset), none hung',
    after.every(refusedCleanly),
    JSON.stringify(count(after.filter((o) => !refusedCleanly(o)))),
  );
  report.check('SIGTERM: no request was processed without an answer', processedUnanswered === 0);
  report.check(
    'SIGTERM: the process exited 0 within its grace period',
    exit.code === 0 && exitMs < shutdownLimitMs,
  );
}
checkStored('after SIGTERM');

await finishRun(report, { logFile, started, dir });
