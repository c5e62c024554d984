// npm run test:load: a 60 s soak at a fixed rate well inside capacity, then a 10 s burst far
// beyond it. Inside: no errors, every answered sign-up stored, RSS flat. Beyond: load shed with
// 503 and Retry-After (never a timeout), and a normal request served again at once after.
// Prints its figures and exits 1 if any check fails.
import { Agent } from 'node:http';
import SqliteDatabase from 'better-sqlite3';
import { ar } from '../src/domain/catalogue';
import {
  finishRun,
  createReport,
  describeOutcome,
  rssBytes,
  send,
  signUp,
  sleep,
  startServer,
  tally,
  prepareRun,
  type Outcome,
} from './harness';

// Sign-ups a second in the soak: 50, or a quarter of the capacity measured at the start when
// the machine is slower than that (it is shared with the load generator, and in development
// with whatever else runs), so that the soak stays well inside capacity either way.
const nominalSoakRate = 50;
const soakSeconds = 60;
const warmUpSeconds = 15;
const burstSeconds = 10;
// Many more clients than the server can answer, each sending again as soon as it has its
// answer, arriving over the first second.
const burstConnections = 400;
const burstRampMs = 1_000;
const probeConnections = 8;
const probeSeconds = 3;
// The server's own requestTimeout (main.ts): a request still unanswered then has timed out.
const requestTimeoutMs = 30_000;
const retryAfter = '5';

const { dir, distDir, databaseFile, logFile } = await prepareRun('load');
const started = performance.now();
const report = createReport('load: soak inside capacity, burst beyond it');

const server = await startServer({ databaseFile, distDir, logFile });
let next = 0;
let answered = 0;
const post = (agent: Agent) =>
  send({
    port: server.port,
    body: JSON.stringify(signUp(next++, 50_000_000)),
    agent,
    timeoutMs: requestTimeoutMs,
  }).then((outcome) => {
    if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) answered++;
    return outcome;
  });

/**
 * `connections` loops, each sending as soon as its last answer came, for `seconds`; the loops
 * start spread over `rampMs`, as a crowd arrives.
 */
async function closedLoop(connections: number, seconds: number, rampMs = 0): Promise<Outcome[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const end = performance.now() + seconds * 1000;
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      await sleep((rampMs * i) / connections);
      while (performance.now() < end) outcomes.push(await post(agent));
    }),
  );
  agent.destroy();
  return outcomes;
}

/** Sends at a fixed rate whatever the answers do (an open loop, as real visitors arrive). */
async function paced(rate: number, seconds: number): Promise<Outcome[]> {
  // Few connections, taken in turn, so that none idles into the server's keep-alive timeout
  // (5 s) and meets the race of a request sent as the server closes it.
  const agent = new Agent({ keepAlive: true, maxSockets: 16, scheduling: 'fifo' });
  const start = performance.now();
  const pending: Promise<Outcome>[] = [];
  for (let i = 0; i < rate * seconds; i += 1) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(post(agent));
  }
  const outcomes = await Promise.all(pending);
  agent.destroy();
  return outcomes;
}

const statusesOf = (outcomes: Outcome[]) => {
  const statuses: Record<string, number> = {};
  for (const outcome of outcomes) tally(statuses, describeOutcome(outcome));
  return statuses;
};
const percentile = (outcomes: Outcome[], p: number) => {
  const sorted = outcomes.map((o) => o.end - o.start).sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

report.figure('server', `pid ${server.pid}, started in ${Math.round(server.startMs)} ms`);

// What "capacity" is on this machine now: a few clients sending back to back.
const probe = await closedLoop(probeConnections, probeSeconds);
const capacity = probe.filter((o) => o.status === 201).length / probeSeconds;
report.figure(
  `capacity probe (${probeConnections} clients back to back, ${probeSeconds} s)`,
  `${Math.round(capacity)} sign-ups/s, ${JSON.stringify(statusesOf(probe))}`,
);
const soakRate = Math.max(10, Math.min(nominalSoakRate, Math.floor(capacity / 4)));
report.figure(
  'soak rate',
  `${soakRate}/s, ${Math.round((100 * soakRate) / capacity)}% of the measured capacity`,
);

// Soak: a warm-up (the first requests of a process are slow), then the measured minute.
const warmUp = await paced(soakRate, warmUpSeconds);
const rss: { at: number; bytes: number }[] = [];
const soakStart = performance.now();
const sampler = setInterval(
  () => rss.push({ at: performance.now() - soakStart, bytes: rssBytes(server.pid) }),
  1_000,
);
const soak = await paced(soakRate, soakSeconds);
clearInterval(sampler);
const soakElapsed = (performance.now() - soakStart) / 1000;
const first = rss.filter((s) => s.at <= 10_000).map((s) => s.bytes);
const last = rss.filter((s) => s.at > (soakSeconds - 10) * 1000).map((s) => s.bytes);
const growth = mean(last) / mean(first) - 1;
const soakStatuses = statusesOf([...warmUp, ...soak]);
report.figure(
  `soak (${warmUpSeconds} s warm-up + ${soakSeconds} s at ${soakRate}/s)`,
  `${soak.length} sign-ups in ${soakElapsed.toFixed(1)} s (${(soak.length / soakElapsed).toFixed(1)}/s), ` +
    `statuses ${JSON.stringify(soakStatuses)}, latency p50 ${percentile(soak, 0.5)} ms, ` +
    `p99 ${percentile(soak, 0.99)} ms, max ${percentile(soak, 1)} ms`,
);
report.figure(
  'soak RSS',
  `first 10 s ${mib(mean(first))}, last 10 s ${mib(mean(last))}, growth ${(growth * 100).toFixed(1)}% ` +
    `(${rss.length} samples, min ${mib(Math.min(...rss.map((s) => s.bytes)))}, ` +
    `max ${mib(Math.max(...rss.map((s) => s.bytes)))})`,
);
report.check(
  'soak: 0 errors, every request answered 201',
  soakStatuses['201'] === warmUp.length + soak.length,
);
report.check('soak: RSS growth from the first to the last 10 s under 10%', growth < 0.1);

// Burst: far more clients than the server can answer in time.
const burstStart = performance.now();
const burst = await closedLoop(burstConnections, burstSeconds, burstRampMs);
const burstEnd = performance.now();
const burstStatuses = statusesOf(burst);
const shed = burst.filter((o) => o.status === 503);
const shedProperly = shed.filter(
  (o) =>
    o.retryAfter === retryAfter &&
    (JSON.parse(o.body ?? '{}') as { error?: string }).error === ar.errorTooManyRequests,
);
report.figure(
  `burst (${burstConnections} clients back to back, arriving over ${burstRampMs} ms, ${burstSeconds} s)`,
  `${burst.length} requests in ${((burstEnd - burstStart) / 1000).toFixed(1)} s, statuses ` +
    `${JSON.stringify(burstStatuses)}, latency p50 ${percentile(burst, 0.5)} ms, ` +
    `p99 ${percentile(burst, 0.99)} ms, max ${percentile(burst, 1)} ms`,
);
report.figure(
  'burst 503s with Retry-After and the Arabic text',
  `${shedProperly.length} of ${shed.length}`,
);
// Not a check (issue 8 stays open on it): one load generator sharing the 2 cores cannot always
// push the server past capacity. On a quiet machine the server answers every one of the 400
// clients (about 2,500 sign-ups/s) and its event loop never lags 200 ms, so nothing is shed; on
// a busy one it sheds thousands. That a lagging loop sheds is checked in http-matrix.test.ts.
report.figure('burst: requests shed with 503', String(shed.length));
report.check(
  `burst: every 503 has Retry-After: ${retryAfter} and {error: ar.errorTooManyRequests}`,
  shedProperly.length === shed.length,
);
report.check(
  'burst: every request answered 201 or 503, none timed out or failed',
  burst.every((o) => o.status === 201 || o.status === 503),
  JSON.stringify(statusesOf(burst.filter((o) => o.status !== 201 && o.status !== 503))),
);

// Recovery: one client, one request every 50 ms, until one is stored.
const recoveryAgent = new Agent({ keepAlive: true, maxSockets: 1 });
const recovery: Outcome[] = [];
while (performance.now() - burstEnd < 5_000) {
  const outcome = await post(recoveryAgent);
  recovery.push(outcome);
  if (outcome.status === 201) break;
  await sleep(50);
}
recoveryAgent.destroy();
const recovered = recovery.at(-1);
const recoveryMs = recovered?.status === 201 ? Math.round(recovered.end - burstEnd) : Infinity;
report.figure(
  'recovery after the burst',
  `first 201 ${recoveryMs} ms after the burst's last answer (${recovery.length} tries: ${JSON.stringify(statusesOf(recovery))})`,
);
report.check('recovery: a normal request is served within 1 s of the burst', recoveryMs <= 1_000);

server.child.kill('SIGTERM');
const exit = await server.exited;
report.figure('server exit after SIGTERM', `code ${exit.code}`);

const db = new SqliteDatabase(databaseFile, { readonly: true });
const rows = (db.prepare('select count(*) as n from registrations').get() as { n: number }).n;
const integrity = db.pragma('integrity_check', { simple: true });
db.close();
report.figure('rows stored / answered 2xx (all phases)', `${rows} / ${answered}`);
report.check('rows = 2xx answers', rows === answered);
report.check('PRAGMA integrity_check', integrity === 'ok', String(integrity));

await finishRun(report, { logFile, started, dir });
