import autocannon, { type Result } from 'autocannon';
import { e2eMarketerAuthSecret, marketerToken } from '../testing/marketer-auth';
import { withOurServer, type BenchDatabase } from './api';
import { addressOf, fromProxy, packages, seed, signUpRows } from './marketer-stats';
import { ms, row, type Row } from './table';

// The programme's page's target: the whole programme's numbers over 90 days within 300 ms (p99),
// one request at a time, with a million sign-ups over 2,000 marketers stored (the marketers'
// bench's seed, over twice its marketers).
const marketers = 2_000;
const days = 90;
const maxP99 = 300;
const seconds = 10;
// Each request another admin's token, from their own address: one user may ask 30 times a
// minute.
const admins = 1_000;

/** `GET /api/program/stats?days=90` latency with a million sign-ups stored, an admin's token. */
export async function benchProgramStats(
  database: BenchDatabase,
  distDir: string,
  scratch: string,
  log: (line: string) => void,
): Promise<{ rows: Row[]; notes: string[] }> {
  const tokens = await Promise.all(
    Array.from({ length: admins }, (_, id) => marketerToken(`bench-admin-${id}`, 'admin')),
  );
  const label = database.label;
  const result = await withOurServer(
    database,
    `program-stats-${label.toLowerCase()}`,
    distDir,
    scratch,
    // Shedding off: while one slow answer blocks SQLite's event loop, the server would answer
    // the next requests 503 at once, and the figure would be theirs.
    { MARKETER_AUTH_SECRET: e2eMarketerAuthSecret, LOAD_SHED_DELAY_MS: '0', ...fromProxy },
    async (server, env) => {
      log(`program stats ${label}: seeding ${signUpRows.toLocaleString('en')} sign-ups`);
      const seeding = performance.now();
      await seed(env.DATABASE_URL ?? '', marketers);
      const seeded = performance.now() - seeding;
      log(`program stats ${label}: 1 connection, ${seconds} s`);
      let next = 0;
      const run = await autocannon({
        url: server.origin,
        connections: 1,
        duration: seconds,
        // A request slower than autocannon's 10 s would count as a time-out, not a figure.
        timeout: 60,
        requests: [
          {
            method: 'GET',
            path: `/api/program/stats?days=${days}`,
            setupRequest: (request) => {
              const user = next++ % admins;
              return {
                ...request,
                headers: {
                  authorization: `Bearer ${tokens[user]}`,
                  'x-forwarded-for': addressOf(user),
                },
              };
            },
          },
        ],
      });
      return { seeded, run };
    },
  );
  const { seeded, run } = result;
  const failed = (answered: Result) => answered.non2xx + answered.errors + answered.timeouts;
  const prefix = `Programme stats ${label}`;
  return {
    rows: [
      row(
        `${prefix}: 90 days, 1M sign-ups stored, 1 at once: p50 / p99 / max (${seconds} s)`,
        `${ms(run.latency.p50)} / ${ms(run.latency.p99)} / ${ms(run.latency.max)}`,
        {
          target: `p99 < ${ms(maxP99)}, no error`,
          met: run.latency.p99 < maxP99 && failed(run) === 0,
        },
      ),
    ],
    notes: [
      `${prefix}: ${run.requests.total} requests, ${failed(run)} failed${failed(run) === 0 ? '' : ` (${JSON.stringify(run.statusCodeStats)})`}; seeded ${signUpRows.toLocaleString('en')} sign-ups over ${marketers.toLocaleString('en')} marketers and ${(marketers * days * packages.length).toLocaleString('en')} visit rows in ${ms(seeded)}.`,
    ],
  };
}
