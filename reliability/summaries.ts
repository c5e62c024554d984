// npm run bench:summaries: the week's summaries never turn a prospect away. With a million
// sign-ups stored over 2,000 marketers, 2,000 marketers and 100 team leaders (teams of 20) and 3
// programme roles ask for the weekly summary and the client notes; the server starts and sends
// the last finished week's summaries at once (its time has passed), while sign-ups arrive at 40 a
// second through marketers' links, each from its own address, load shedding on. Then the CRM
// makes five leads clients, one after the other. Checks that no sign-up is refused, every
// summary reaches the relay once, and each client note within 60 s; prints the whole run, the
// sign-ups' times during it and after it, and each client note's wait.
//   tsx reliability/summaries.ts [--rows 1000000] [--postgres]
// (--postgres: TEST_DATABASE_URL)
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { seed } from '../testing/seed';
import {
  createReport,
  finishRun,
  ms,
  onPostgres,
  prepareRun,
  runDatabase,
  quantile,
  send,
  sendSteadySignUps,
  sleep,
  startServer,
  type Outcome,
} from './harness';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    postgres: { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const marketers = 2_000;
const leaders = 100;
const teamSize = marketers / leaders;
const programRoles = 3;
const signUpsPerSecond = 40;
/** The sign-ups' pace once every summary is out, to compare with. */
const afterMs = 30_000;
/** A start with e-mail off, before: the keeper keeps the seeded days meanwhile. */
const quietMs = 60_000;
const clientNotes = 5;
const maxClientNoteMs = 60_000;
const leadsKey = 'bench-crm-'.repeat(4);

const { dir, distDir, databaseFile, logFile } = await prepareRun('summaries');
const started = performance.now();
const label = values.postgres ? 'PostgreSQL' : 'SQLite';
const report = createReport(
  `summaries: ${marketers.toLocaleString('en')} marketers' and ${leaders} team leaders' weeks with ${rows.toLocaleString('en')} sign-ups stored, ${label}`,
);

/**
 * A relay that counts what it is sent by kind (its Feedback-ID) and reads no further: parsing
 * two thousand e-mails here would take the server's cores.
 */
async function startCountingRelay() {
  const received: { kind: string; to: string; at: number }[] = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    onData(stream, session, callback) {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 4096) head += chunk.toString('latin1');
      });
      stream.on('end', () => {
        const kind = /^Feedback-ID:\s*(\w+):/im.exec(head)?.[1] ?? '?';
        for (const { address } of session.envelope.rcptTo) {
          received.push({ kind, to: address, at: performance.now() });
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const { databaseUrl, drop } = await runDatabase('summaries', databaseFile, values.postgres);

/** Statements on the run's database, the server stopped (SQLite) or not (PostgreSQL). */
async function execute(statements: string[]) {
  if (!values.postgres) {
    const db = new BetterSqlite3(databaseFile);
    try {
      db.transaction(() => statements.forEach((statement) => db.exec(statement)))();
    } finally {
      db.close();
    }
    return;
  }
  for (const statement of statements) await onPostgres(statement, databaseUrl);
}
async function query(statement: string) {
  if (values.postgres) return onPostgres(statement, databaseUrl);
  const db = new BetterSqlite3(databaseFile, { readonly: true });
  try {
    return db.prepare(statement).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

const relay = await startCountingRelay();
const env = {
  DATABASE_URL: databaseUrl,
  MARKETER_AUTH_SECRET: 'bench-marketer-secret-'.repeat(2),
  LEADS_API_KEY: leadsKey,
  // Every request comes through a proxy on 127.0.0.1 that names the client's address.
  TRUST_PROXY: '127.0.0.1',
  RATE_LIMIT_PER_MINUTE: '20',
  PUBLIC_URL: 'https://tasjeel.example',
};

// Migrated by a first start without e-mail (with it, an empty week's run would be done at once),
// then seeded, with the server stopped: the directory, and who asked for what.
const first = await startServer({ databaseFile, distDir, logFile, env });
await first.stop();
const seeding = performance.now();
await seed(databaseUrl, marketers, rows);
const now = new Date().toISOString();
const people: string[] = [];
const subscribers: string[] = [];
const person = (id: string, leader: string | null) =>
  `('${id}', 'مسوق ${id}', ${leader === null ? 'null' : `'${leader}'`}, '${id}@people.example', 1, null, '${now}')`;
const subscriber = (id: string, audience: string) =>
  `('${id}', '${audience}', '${id}@people.example', '${now}', 1, ${audience === 'program' ? 0 : 1}, ${audience === 'program' ? 1 : 0}, 'stop-${id}', '${now}')`;
for (let id = 0; id < marketers; id++) {
  people.push(person(String(id), `leader-${Math.floor(id / teamSize)}`));
  subscribers.push(subscriber(String(id), 'marketer'));
}
for (let id = 0; id < leaders; id++) {
  people.push(person(`leader-${id}`, null));
  subscribers.push(subscriber(`leader-${id}`, 'team_leader'));
}
for (let id = 0; id < programRoles; id++) subscribers.push(subscriber(`admin-${id}`, 'program'));
await execute([
  `insert into people (marketing_id, name, team_leader_id, email, active, inactive_since, updated_at) values ${people.join(', ')}`,
  `insert into mail_subscribers (subject, audience, email, confirmed_at, weekly_summary, client_alerts, review_digest, unsubscribe_token, updated_at) values ${subscribers.join(', ')}`,
]);
report.figure('seeded', `${rows.toLocaleString('en')} sign-ups in ${seconds(seeding)}`);
const summaries = marketers + leaders + programRoles;

const counter = { next: 0 };
const signUps: Outcome[] = [];
let sending = true;

/** Sign-ups at a steady rate until `sending` is false, each through a marketer's link. */
const sendSignUps = (port: number) =>
  sendSteadySignUps({
    port,
    perSecond: signUpsPerSecond,
    marketers,
    going: () => sending,
    record: (outcome) => void signUps.push(outcome),
    counter,
  });

// A start with e-mail off first, sign-ups arriving: the server keeps the seeded days as any
// start after a deploy would, so that the run below is timed apart from that, and its sign-ups
// are the figures to compare with.
const quiet = await startServer({ databaseFile, distDir, logFile, env });
try {
  const pacing = sendSignUps(quiet.port);
  await sleep(quietMs);
  sending = false;
  await pacing;
} finally {
  await quiet.stop();
}
const quietSignUps = signUps.splice(0);
sending = true;

const weekly = () => relay.received.filter((one) => one.kind === 'weekly');
const startAt = performance.now();
const server = await startServer({
  databaseFile,
  distDir,
  logFile,
  env: { ...env, SMTP_URL: relay.url, MAIL_FROM: 'Tasjeel <no-reply@tasjeel.example>' },
});
try {
  const pacing = sendSignUps(server.port);
  while (weekly().length < summaries && performance.now() - startAt < 15 * 60_000) {
    await sleep(250);
  }
  const allSentAt = performance.now();
  const during = signUps.length;
  await sleep(afterMs);
  const afterFrom = signUps.length;
  // The CRM makes a lead of five marketers a client, one after the other: row i is marketer
  // i mod 2,000, and row 5 × 2,000 + m a new lead of marketer m (testing/seed.ts).
  const notes: number[] = [];
  for (let n = 0; n < clientNotes; n++) {
    const lead = `00000000-0000-4000-8000-${String(5 * marketers + n * 17).padStart(12, '0')}`;
    const before = relay.received.filter((one) => one.kind === 'client').length;
    const changing = performance.now();
    const changed = await send({
      port: server.port,
      path: `/api/leads/${lead}/status`,
      body: JSON.stringify({ status: 'client' }),
      headers: { authorization: `Bearer ${leadsKey}` },
    });
    if (changed.status !== 200)
      throw new Error(`status change: ${changed.status ?? changed.error}`);
    while (
      relay.received.filter((one) => one.kind === 'client').length === before &&
      performance.now() - changing < 2 * maxClientNoteMs
    ) {
      await sleep(50);
    }
    notes.push(performance.now() - changing);
  }
  sending = false;
  await pacing;

  const [run] = await query(
    `select started_at, finished_at from mail_runs where kind = 'weekly' order by period desc`,
  );
  const queueing =
    run?.finished_at == null
      ? 'unfinished'
      : `${((Date.parse(String(run.finished_at)) - Date.parse(String(run.started_at))) / 1000).toFixed(1)} s`;
  report.figure(
    'the whole run: the start to the last summary at the relay; of it, counting and queueing',
    `${seconds(startAt, allSentAt)}; ${queueing}`,
  );
  const recipients = new Set(weekly().map((one) => one.to));
  report.check(
    `every one of the ${summaries.toLocaleString('en')} summaries at the relay, once`,
    weekly().length === summaries && recipients.size === summaries,
    `${weekly().length} e-mails to ${recipients.size} addresses`,
  );
  for (const [name, measured] of [
    [`in the ${quietMs / 1000} s after a start with e-mail off`, quietSignUps],
    ['while the summaries were counted and sent', signUps.slice(0, during)],
    [`in the ${afterMs / 1000} s after`, signUps.slice(during, afterFrom)],
  ] as const) {
    const answered = measured.filter((one) => one.status === 201 || one.status === 200);
    const times = measured.map((one) => one.end - one.start).sort((a, b) => a - b);
    report.figure(
      `sign-ups ${name}: p50 / p99 / slowest`,
      `${ms(quantile(times, 0.5))} / ${ms(quantile(times, 0.99))} / ${ms(times.at(-1) ?? 0)} of ${times.length}`,
    );
    report.check(
      `every sign-up ${name} answered 2xx within 1 s`,
      answered.length === measured.length && (times.at(-1) ?? 0) < 1_000,
      `${measured.length - answered.length} refused`,
    );
  }
  report.figure('client notes: the status change to the relay, each', notes.map(ms).join(', '));
  report.check(
    `every client note at the relay within ${maxClientNoteMs / 1000} s`,
    notes.length === clientNotes && notes.every((wait) => wait < maxClientNoteMs),
  );
} finally {
  sending = false;
  await server.stop();
  await relay.close();
  await drop();
}
await finishRun(report, { logFile, started, dir });

function seconds(since: number, until = performance.now()) {
  return `${((until - since) / 1000).toFixed(1)} s`;
}
