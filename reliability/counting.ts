// npm run test:counting: a manager's look never turns a prospect away. Sign-ups arrive steadily
// through marketers' links, each from its own address, while programme roles, marketers and
// team leaders open their numbers right after a start (nothing kept yet) and again after an
// erasure; load shedding on, as `npm start` runs. Checks that no sign-up is refused and every
// reader is answered 200; prints the times (targets: docs/performance.md, `npm run
// bench:counting`, which runs this with a million sign-ups on each database).
//   tsx reliability/counting.ts [--rows 100000] [--seconds 30] [--postgres]
// (--postgres: TEST_DATABASE_URL; --seconds: each phase's length, past 60 the programme's
// answers once the first minute is over are shown apart)
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { e2eMarketerAuthSecret, marketerToken } from '../testing/marketer-auth';
import { seed } from '../testing/seed';
import {
  addressOf,
  createReport,
  finishRun,
  ms,
  prepareRun,
  runDatabase,
  quantile,
  send,
  sendSteadySignUps,
  startServer,
  type Outcome,
} from './harness';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '30' },
    postgres: { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const marketers = 2_000;
const signUpsPerSecond = 40;
/** Each phase: from a start, and from an erasure. */
const phaseSeconds = Number(values.seconds);
/** The programme's target (p99 under 300 ms) holds once this is over (docs/performance.md). */
const firstMinute = 60_000;
const teamSize = 50;

const { dir, distDir, databaseFile, logFile } = await prepareRun('counting');
const started = performance.now();
const label = values.postgres ? 'PostgreSQL' : 'SQLite';
const report = createReport(
  `counting: sign-ups while the numbers are read, ${rows.toLocaleString('en')} stored, ${label}`,
);

const { databaseUrl, drop } = await runDatabase('counting', databaseFile, values.postgres);
const env = {
  DATABASE_URL: databaseUrl,
  MARKETER_AUTH_SECRET: e2eMarketerAuthSecret,
  // Every request comes through a proxy on 127.0.0.1 that names the client's address.
  TRUST_PROXY: '127.0.0.1',
  RATE_LIMIT_PER_MINUTE: '20',
};

// Migrated by a first start, then seeded with the server stopped: the next start keeps nothing.
const first = await startServer({ databaseFile, distDir, logFile, env });
await first.stop();
const seeding = performance.now();
await seed(databaseUrl, marketers, rows);
report.figure('seeded', `${rows.toLocaleString('en')} sign-ups in ${seconds(seeding)}`);

const tokens = {
  program: await Promise.all(
    Array.from({ length: 200 }, (_, i) => marketerToken(`m-${i}`, 'admin')),
  ),
  marketer: await Promise.all(Array.from({ length: 200 }, (_, i) => marketerToken(String(i * 7)))),
  leader: await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      marketerToken(String(i * 11), 'team_leader_marketing', {
        team: Array.from({ length: teamSize }, (_, n) => String((i * 11 + 1 + n) % marketers)),
      }),
    ),
  ),
};

const counter = { next: 0 };
const signUps: Outcome[] = [];
const readers: (Outcome & { who: string })[] = [];

/** Sign-ups at a steady rate for `ms`, each through a marketer's link from its own address. */
function sendSignUps(port: number, ms: number): Promise<void> {
  const end = performance.now() + ms;
  return sendSteadySignUps({
    port,
    perSecond: signUpsPerSecond,
    marketers,
    going: () => performance.now() < end,
    record: (outcome) => void signUps.push(outcome),
    counter,
  });
}

/** One reader after another for `ms`: the programme (90, 30, 7 days, a marketer's page), a marketer, a team leader. */
async function read(port: number, ms: number, phase: string): Promise<void> {
  const end = performance.now() + ms;
  const asks = [
    ['program', '/api/program/stats?days=90'],
    ['program', '/api/program/stats?days=30'],
    ['program', '/api/program/stats?days=7'],
    ['program', '/api/program/marketers/7/stats?days=90'],
    ['marketer', '/api/marketer/stats?days=90'],
    ['leader', '/api/marketer/stats?days=90'],
  ] as const;
  for (let n = 0; performance.now() < end; n++) {
    const [who, path] = asks[n % asks.length]!;
    const token = tokens[who][n % tokens[who].length]!;
    const outcome = await send({
      port,
      method: 'GET',
      path,
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': addressOf(5_000_000 + n) },
      timeoutMs: 60_000,
    });
    readers.push({ ...outcome, who: `${phase} ${who}` });
  }
}

const server = await startServer({ databaseFile, distDir, logFile, env });
const phase = async (name: string) => {
  const from = { signUps: signUps.length, readers: readers.length, at: performance.now() };
  await Promise.all([
    sendSignUps(server.port, phaseSeconds * 1000),
    read(server.port, phaseSeconds * 1000, name),
  ]);
  return {
    signUps: signUps.slice(from.signUps),
    readers: readers.slice(from.readers),
    at: from.at,
  };
};
try {
  const fromStart = await phase('after a start');
  // An erasure from the command line, as a person asks for it: one lead of each finished week.
  const erasing = performance.now();
  for (let week = 1; week <= 12; week++) {
    const i = Math.floor((week * 7 * rows) / 90);
    execFileSync(
      process.execPath,
      [
        join(distDir, 'server', 'person.js'),
        '--phone',
        `9665${String(i).padStart(8, '0')}`,
        '--erase',
        '--yes',
      ],
      { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: 'ignore' },
    );
  }
  report.figure('twelve erasures', seconds(erasing));
  const fromErasure = await phase('after an erasure');
  for (const [name, measured] of [
    ['after a start', fromStart],
    ['after an erasure', fromErasure],
  ] as const) {
    const answered = measured.signUps.filter((one) => one.status === 201 || one.status === 200);
    const times = measured.signUps.map((one) => one.end - one.start).sort((a, b) => a - b);
    report.figure(
      `sign-ups ${name}: p50 / p99 / slowest`,
      `${ms(quantile(times, 0.5))} / ${ms(quantile(times, 0.99))} / ${ms(times.at(-1) ?? 0)} of ${times.length}`,
    );
    report.check(
      `every sign-up ${name} answered 2xx`,
      answered.length === measured.signUps.length,
      refusals(measured.signUps.filter((one) => !answered.includes(one))),
    );
    for (const who of ['program', 'marketer', 'leader']) {
      const asked = measured.readers.filter((one) => one.who.endsWith(who));
      report.figure(
        `${who} ${name}: answers in order`,
        summary(asked.map((one) => one.end - one.start)),
      );
      const later = asked
        .filter((one) => one.start - measured.at >= firstMinute)
        .map((one) => one.end - one.start)
        .sort((a, b) => a - b);
      if (later.length > 0) {
        report.figure(
          `${who} ${name}, once the first minute is over: p50 / p99 / slowest`,
          `${ms(quantile(later, 0.5))} / ${ms(quantile(later, 0.99))} / ${ms(later.at(-1) ?? 0)} of ${later.length}`,
        );
      }
      report.check(
        `every ${who} ${name} answered 200`,
        asked.every((one) => one.status === 200),
        refusals(asked.filter((one) => one.status !== 200)),
      );
    }
  }
} finally {
  await server.stop();
  await drop();
}
await finishRun(report, { logFile, started, dir });

function seconds(since: number) {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}
/** The first answers one by one, then the rest as p50 / p99 / slowest. */
function summary(times: number[]) {
  const rest = times.slice(5).sort((a, b) => a - b);
  return `${times.slice(0, 5).map(ms).join(', ')}; then ${rest.length}: ${ms(quantile(rest, 0.5))} / ${ms(quantile(rest, 0.99))} / ${ms(rest.at(-1) ?? 0)}`;
}
function refusals(outcomes: Outcome[]) {
  const counts = new Map<string, number>();
  for (const one of outcomes) {
    const key = String(one.status ?? one.error);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${count} × ${key}`).join(', ');
}
