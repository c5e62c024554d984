// npm run test:retention: a server started on PostgreSQL with 1,000,000 submissions past
// RETENTION_DAYS answers at once, takes sign-ups and status changes while it deletes them in the
// background, has deleted them all within three minutes, and the counts of the report stay.
// Needs TEST_DATABASE_URL (CI sets it); works in a schema of its own, dropped at the end.
// Prints its figures and exits 1 if any check fails.
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { Client } from 'pg';
import { openDatabase } from '../src/server/db/database';
import { loadDatabaseConfig } from '../src/server/env';
import { countAll } from '../src/server/counts';
import type { ServerProcess } from '../testing/server-process';
import {
  createReport,
  describeOutcome,
  finishRun,
  prepareRun,
  send,
  signUp,
  sleep,
  startServer,
  tally,
  type Outcome,
} from './harness';

const backlog = 1_000_000;
const retentionDays = 30;
const deletedWithinMs = 180_000;
const leadsKey = randomBytes(24).toString('base64url');

const databaseUrl = process.env.TEST_DATABASE_URL;
if (databaseUrl === undefined || databaseUrl === '') {
  throw new Error('TEST_DATABASE_URL is not set: this run needs PostgreSQL');
}
const { dir, distDir, databaseFile, logFile } = await prepareRun('retention');
const started = performance.now();
const report = createReport(
  `retention: ${backlog.toLocaleString('en')} submissions past the limit`,
);

const schema = `tasjeel_retention_${randomBytes(6).toString('hex')}`;
const admin = new Client({ connectionString: databaseUrl });
await admin.connect();
await admin.query(`create schema ${schema}`);
const url = new URL(databaseUrl);
url.searchParams.set('options', `-c search_path=${schema}`);
const env = { DATABASE_URL: url.href, LEADS_API_KEY: leadsKey };
const day = 24 * 60 * 60 * 1000;
const cutoff = () => new Date(Date.now() - retentionDays * day).toISOString();

/**
 * Submissions past the limit, oldest first: every tenth a repeat of the one before; half with
 * campaign parameters (500 campaigns of many people), and one in a thousand with a campaign of
 * its own, which the deletion counts as "(other)" (docs/personal-data.md).
 */
async function fill() {
  const oldest = new Date(Date.now() - (retentionDays + 20) * day).toISOString();
  await admin.query(
    `insert into ${schema}.registrations
       (id, created_at, name, email, phone, notes, marketing_id, package_key, repeat_of,
        privacy_url, privacy_version, channel, status, utm_source, utm_campaign)
     select 'old-' || i,
       to_char(($1::timestamptz + i * interval '1 second') at time zone 'UTC',
         'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       'x', null, '9665' || lpad((i - (i % 10 = 0)::int)::text, 8, '0'),
       'notes ' || ((i - (i % 10 = 0)::int) % 40), 'old-m' || ((i - (i % 10 = 0)::int) % 40),
       'premium_reco', case when i % 10 = 0 then 'old-' || (i - 1) end, '', '', 'api',
       case when i % 10 = 0 then null else 'new' end,
       case when i % 2 = 0 then 'whatsapp' end,
       case when i % 1000 = 1 then 'person-' || i when i % 2 = 0 then 'week-' || (i % 500) end
     from generate_series(1, $2::int) as i`,
    [oldest, backlog],
  );
  await admin.query(`analyze ${schema}.registrations`);
}

// The fill's own marketers: the sign-ups of the run are counted apart.
const filledMarketers = Array.from({ length: 40 }, (_, n) => `old-m${n}`);

async function counts() {
  const database = await openDatabase(loadDatabaseConfig({ DATABASE_URL: url.href }));
  try {
    const rows = await countAll(database.db, ['marketing_id'], {
      repeats: true,
      marketingIds: filledMarketers,
    });
    return JSON.stringify(
      rows.sort((a, b) => (a.marketing_id ?? '').localeCompare(b.marketing_id ?? '')),
    );
  } finally {
    await database.close();
  }
}

async function pastTheLimit(): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `select count(*) as n from ${schema}.registrations where created_at < $1`,
    [cutoff()],
  );
  return Number(rows[0]!.n);
}

/**
 * The oldest submission past the limit, or undefined once none is left: one entry of the index
 * on created_at and id, which every chunk deletes from the oldest. Read every 50 ms, where a
 * count of the 1,000,000 rows would take longer than the wait it measures, and compete with the
 * deletion for the same two cores.
 */
async function oldestPastTheLimit(): Promise<string | undefined> {
  const { rows } = await admin.query<{ id: string }>(
    `select id from ${schema}.registrations where created_at < $1 order by created_at, id limit 1`,
    [cutoff()],
  );
  return rows[0]?.id;
}

// The schema first, by a server without RETENTION_DAYS.
const migrating = await startServer({ databaseFile, distDir, logFile, env });
await migrating.stop();
const fillStart = performance.now();
await fill();
report.figure('fill time', `${((performance.now() - fillStart) / 1000).toFixed(1)} s`);
const before = await counts();

let server: ServerProcess | undefined;
try {
  server = await startServer({
    databaseFile,
    distDir,
    logFile,
    env: { ...env, RETENTION_DAYS: String(retentionDays) },
  });
} catch (error) {
  report.check('the server starts', false, (error as Error).message);
}

if (server !== undefined) {
  const startedAt = performance.now();
  report.figure('start to health', `${Math.round(server.startMs)} ms`);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const signUps: Outcome[] = [];
  const changes: Outcome[] = [];
  let firstDeletedMs: number | undefined;
  let allDeletedMs: number | undefined;
  let next = 0;
  const port = server.port;

  // Sign-ups and status changes, one after another, until everything past the limit is gone.
  let running = true;
  const traffic = (async () => {
    while (running) {
      const created = await send({ port, agent, body: JSON.stringify(signUp(next++, 70_000_000)) });
      signUps.push(created);
      if (created.status === 201) {
        const { id } = JSON.parse(created.body!) as { id: string };
        changes.push(
          await send({
            port,
            agent,
            path: `/api/leads/${id}/status`,
            body: JSON.stringify({ status: 'contacted' }),
            headers: { authorization: `Bearer ${leadsKey}` },
          }),
        );
      }
      await sleep(100);
    }
  })();
  const total = await pastTheLimit();
  const oldest = await oldestPastTheLimit();
  while (performance.now() - startedAt < deletedWithinMs) {
    const now = performance.now() - startedAt;
    const left = await oldestPastTheLimit();
    if (firstDeletedMs === undefined && left !== oldest) firstDeletedMs = now;
    if (left === undefined) {
      allDeletedMs = now;
      break;
    }
    await sleep(50);
  }
  running = false;
  await traffic;
  agent.destroy();

  const statuses = (outcomes: Outcome[]) => {
    const tallied: Record<string, number> = {};
    for (const outcome of outcomes) tally(tallied, describeOutcome(outcome));
    return tallied;
  };
  const slowest = (outcomes: Outcome[]) =>
    `${Math.round(Math.max(0, ...outcomes.map((o) => o.end - o.start)))} ms`;
  report.figure('past the limit when health first answered', total);
  report.figure('first deleted after health', `${firstDeletedMs?.toFixed(0)} ms`);
  report.figure('all deleted after health', `${allDeletedMs?.toFixed(0)} ms`);
  report.figure('sign-ups meanwhile', statuses(signUps));
  report.figure('slowest sign-up', slowest(signUps));
  report.figure('status changes meanwhile', statuses(changes));
  report.figure('slowest status change', slowest(changes));
  report.check(
    'the first deleted within 2 s of health answering',
    firstDeletedMs !== undefined && firstDeletedMs < 2_000,
  );
  report.check(
    `everything past the limit deleted within ${deletedWithinMs / 1000} s`,
    allDeletedMs !== undefined,
  );
  report.check(
    'sign-ups answered 201 meanwhile',
    signUps.length > 0 && signUps.every((o) => o.status === 201),
  );
  report.check(
    'status changes answered 200 meanwhile',
    changes.length > 0 && changes.every((o) => o.status === 200),
  );
  const exit = await server.stop();
  report.check('exits 0 at SIGTERM', exit.code === 0, `${exit.code} ${exit.signal}`);
  report.check('the counts of the report stay', (await counts()) === before);
}

await admin.query(`drop schema ${schema} cascade`);
await admin.end();
await finishRun(report, { logFile, started, dir });
