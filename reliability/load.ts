// npm run test:load: a 60 s soak at a fixed rate well inside capacity, then a 10 s burst far
// beyond it. Inside: no errors, every answered sign-up stored, RSS flat. Beyond: load shed with
// 503 and Retry-After (never a timeout), and a normal request served again at once after.
// Prints its figures and exits 1 if any check fails.
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import SqliteDatabase from 'better-sqlite3';
import { ar } from '../src/domain/catalogue/shared';
import { requestTimeoutMs, retryAfterSeconds } from '../src/server/server-limits';
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
  registerPath,
  type Outcome,
} from './harness';

// Sign-ups a second in the soak: 50, or a quarter of the capacity measured at the start when
// the machine is slower than that (it is shared with the load generator, and in development
// with whatever else runs), so that the soak stays well inside capacity either way.
const nominalSoakRate = 50;
const soakSeconds = 60;
const warmUpSeconds = 15;
const burstSeconds = 10;
// Sign-ups arriving at twice the capacity measured at the start, over many sockets. At three
// times, answering the sheds alone fell 13 s behind on this machine, and some of the kept-alive
// sockets were reset, which a real crowd of separate connections would not meet.
const burstOverCapacity = 2;
const burstSockets = 200;
// As many as the burst's: the more sign-ups wait, the more each commit takes, so fewer sockets
// measured less than the server then stored (1,783/s, then 3,214/s stored in the burst).
const probeConnections = burstSockets;
const probeSeconds = 3;
const retryAfter = String(retryAfterSeconds);

const { dir, distDir, databaseFile, logFile } = await prepareRun('load');
const started = performance.now();
const report = createReport('load: soak inside capacity, burst beyond it');

const server = await startServer({ databaseFile, distDir, logFile });
let next = 0;
let answered = 0;
// Each sign-up of the run is distinct (its own phone number from 50,000,000 on).
const nextBody = () => JSON.stringify(signUp(next++, 50_000_000));
const post = (agent: Agent) =>
  send({
    port: server.port,
    body: nextBody(),
    agent,
    timeoutMs: requestTimeoutMs,
  }).then((outcome) => {
    if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) answered++;
    return outcome;
  });

/** One sign-up as written onto a socket. */
const rawSignUp = () => {
  const body = nextBody();
  return (
    `POST ${registerPath} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
};

/**
 * `connections` sockets, each sending its next sign-up as soon as its last answer came, for
 * `seconds`: what the server answers when the sender costs almost nothing (see pipelinedBurst).
 */
async function closedLoop(connections: number, seconds: number): Promise<Outcome[]> {
  const end = performance.now() + seconds * 1000;
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: connections }, async () => {
      let stopped = () => {};
      const lane = await openLane((outcome, self) => {
        outcomes.push(outcome);
        if (outcome.status !== undefined && performance.now() < end) self.send([rawSignUp()]);
        else stopped();
      });
      const done = new Promise<void>((resolve) => {
        stopped = resolve;
        lane.send([rawSignUp()]);
      });
      // A sign-up never answered counts as a time-out (close records it), not a hang.
      await Promise.race([done, sleep(seconds * 1000 + requestTimeoutMs)]);
      lane.close();
    }),
  );
  return outcomes;
}

/**
 * Sends `rate` sign-ups a second for `seconds` whatever the answers do, written straight onto
 * `socketCount` kept-alive sockets, several requests a write (HTTP/1.1 pipelining). A crowd
 * sent through node:http would cost this process about what answering it costs the server, on
 * the same two cores, so it could never outrun it; raw writes cost it almost nothing.
 */
async function pipelinedBurst(rate: number, seconds: number, socketCount: number) {
  const outcomes: Outcome[] = [];
  const lanes = await Promise.all(
    Array.from({ length: socketCount }, () => openLane((outcome) => outcomes.push(outcome))),
  );
  const start = performance.now();
  let sent = 0;
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) * rate) / 1000);
    const batches = lanes.map(() => [] as string[]);
    for (; sent < due; sent += 1) batches[sent % lanes.length]?.push(rawSignUp());
    lanes.forEach((lane, i) => lane.send(batches[i] ?? []));
    await sleep(5);
  }
  const deadline = performance.now() + requestTimeoutMs;
  while (lanes.some((lane) => lane.waiting() > 0) && performance.now() < deadline) await sleep(50);
  for (const lane of lanes) lane.close();
  return { sent, outcomes };
}

interface Lane {
  send(requests: string[]): void;
  waiting(): number;
  close(): void;
}

/** One raw socket: answers come back in the order the requests went out. */
async function openLane(record: (outcome: Outcome, lane: Lane) => void): Promise<Lane> {
  const socket: Socket = connect(server.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const started: number[] = [];
  const lane: Lane = {
    send(requests) {
      if (requests.length === 0) return;
      const now = performance.now();
      started.push(...requests.map(() => now));
      socket.write(requests.join(''));
    },
    waiting: () => started.length,
    close() {
      fail('TIMEOUT');
      socket.destroy();
    },
  };
  let buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headEnd = buffer.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const head = buffer.subarray(0, headEnd).toString();
      const length = Number(/^content-length: *(\d+)$/im.exec(head)?.[1] ?? 0);
      if (buffer.length < headEnd + 4 + length) return;
      const body = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString();
      buffer = buffer.subarray(headEnd + 4 + length);
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]);
      if (status >= 200 && status < 300) answered++;
      record(
        {
          status,
          retryAfter: /^retry-after: *(.+)$/im.exec(head)?.[1]?.trim(),
          body,
          start: started.shift() ?? Number.NaN,
          end: performance.now(),
        },
        lane,
      );
    }
  });
  // Requests still unanswered when the socket ends failed with it.
  const fail = (error: string) => {
    const end = performance.now();
    for (const start of started.splice(0)) record({ error, start, end }, lane);
  };
  socket.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
  socket.on('close', () => fail('ECONNRESET'));
  return lane;
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

// What "capacity" is on this machine now: clients sending back to back on raw sockets. Through
// node:http, this process answered fewer than the server could (1,497/s where the server then
// took 2,993/s without shedding one), so twice that was no burst at all.
const probe = await closedLoop(probeConnections, probeSeconds);
const capacity = probe.filter((o) => o.status === 201).length / probeSeconds;
report.figure(
  `capacity probe (${probeConnections} sockets back to back, ${probeSeconds} s)`,
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

// Refusals: what bots and broken clients send, each body carrying a name, a phone number and
// an e-mail. Every refusal writes a log line (its code or failing fields), so the log scan at
// the end reads what the server said about personal data it refused.
// Phone numbers from 60,000,000 on: none of them may be stored.
const refusedSignUp = (i: number) => signUp(i, 60_000_000);
const refusalKinds = [
  {
    kind: 'invalid e-mail',
    status: 400,
    body: (i: number) => JSON.stringify({ ...refusedSignUp(i), email: `lead.${i}@mail.example.` }),
  },
  {
    kind: 'broken JSON',
    status: 400,
    body: (i: number) => JSON.stringify(refusedSignUp(i)).slice(0, -1),
  },
  {
    kind: 'form-encoded',
    status: 415,
    contentType: 'application/x-www-form-urlencoded',
    body: (i: number) =>
      new URLSearchParams(
        Object.entries(refusedSignUp(i)).map(([key, value]): [string, string] => [
          key,
          String(value),
        ]),
      ).toString(),
  },
  {
    kind: 'over the body limit',
    status: 413,
    body: (i: number) => JSON.stringify({ ...refusedSignUp(i), notes: 'x'.repeat(20_000) }),
  },
];
const refusalsPerKind = 250;
const refusalAgent = new Agent({ keepAlive: true, maxSockets: 8 });
const refusals = await Promise.all(
  refusalKinds.flatMap(({ status, contentType, body }) =>
    Array.from({ length: refusalsPerKind }, async (_, i) => {
      const outcome = await send({
        port: server.port,
        body: body(i),
        contentType,
        agent: refusalAgent,
        timeoutMs: requestTimeoutMs,
      });
      const { error } = JSON.parse(outcome.body ?? '{}') as { error?: string };
      return outcome.status === status && /[\u0600-\u06ff]/.test(error ?? '');
    }),
  ),
);
refusalAgent.destroy();
report.figure(
  `refusals (${refusalsPerKind} each: ${refusalKinds.map(({ kind, status }) => `${kind} ${status}`).join(', ')})`,
  `${refusals.filter(Boolean).length} of ${refusals.length} answered as expected with an Arabic error`,
);
report.check('refusals: each answered its 4xx with an Arabic error', refusals.every(Boolean));

// Burst: sign-ups arriving far faster than the server can store them.
const burstRate = Math.round(capacity * burstOverCapacity);
const burstStart = performance.now();
const { sent: burstSent, outcomes: burst } = await pipelinedBurst(
  burstRate,
  burstSeconds,
  burstSockets,
);
const burstEnd = performance.now();
const burstStatuses = statusesOf(burst);
const shed = burst.filter((o) => o.status === 503);
const shedProperly = shed.filter(
  (o) =>
    o.retryAfter === retryAfter &&
    (JSON.parse(o.body ?? '{}') as { error?: string }).error === ar.errorTooManyRequests,
);
report.figure(
  `burst (${burstRate}/s, ${burstOverCapacity}x the capacity, for ${burstSeconds} s on ${burstSockets} sockets)`,
  `${burstSent} requests, answered in ${((burstEnd - burstStart) / 1000).toFixed(1)} s, statuses ` +
    `${JSON.stringify(burstStatuses)}, latency p50 ${percentile(burst, 0.5)} ms, ` +
    `p99 ${percentile(burst, 0.99)} ms, max ${percentile(burst, 1)} ms`,
);
report.figure(
  'burst 503s with Retry-After and the Arabic text',
  `${shedProperly.length} of ${shed.length}`,
);
report.check('burst: the server shed load with 503', shed.length > 0, `${shed.length} shed`);
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
