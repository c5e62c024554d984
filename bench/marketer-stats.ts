import autocannon, { type Result } from 'autocannon';
import { e2eMarketerAuthSecret, marketerToken } from '../testing/marketer-auth';
import { packages, seed, signUpRows } from '../testing/seed';
import { withOurServer, type BenchDatabase } from './api';
import { ms, row, type Row } from './table';

// Issue 17's target: a marketer's numbers within 50 ms (p99) with a million sign-ups and
// visits in the database. The rows are spread over 1,000 marketers and 90 days, the visits
// rolled up per day and package as the server keeps them. Issue 26's: a team leader's, with 50
// members (fifty times the rows), within 100 ms. A tenth of the leads are clients, a tenth
// contacted, as a CRM would have left them.
const marketers = 1_000;
const days = 90;
const maxP99 = 50;
const teamSize = 50;
const maxTeamP99 = 100;
const seconds = 10;

/**
 * Each user's requests as from an address of their own, through a proxy on 127.0.0.1 that the
 * server trusts (as behind Caddy): the server allows 120 token checks a minute from one address.
 */
export const fromProxy = { TRUST_PROXY: '127.0.0.1' };
export const addressOf = (user: number) => `10.0.${(user >> 8) & 255}.${user & 255}`;

/** What a run measures: whose tokens, how many requests at once, and its target if any. */
interface Run {
  who: 'marketer' | 'team leader';
  connections: number;
  maxP99?: number;
}
// One marketer at a time is what the target is about: the wait of a marketer who opens the
// page. Ten at once shows how that wait grows when many open it together (no target).
const runs: Run[] = [
  { who: 'marketer', connections: 1, maxP99 },
  { who: 'marketer', connections: 10 },
  { who: 'team leader', connections: 1, maxP99: maxTeamP99 },
];

/** Marketer i's team: the 50 marketers after it. */
const teamOf = (leader: number) =>
  Array.from({ length: teamSize }, (_, n) => String((leader + 1 + n) % marketers));

/**
 * `GET /api/marketer/stats?days=90` latency with a million sign-ups stored, each request another
 * marketer's, then another team leader's.
 */
export async function benchMarketerStats(
  database: BenchDatabase,
  distDir: string,
  scratch: string,
  log: (line: string) => void,
): Promise<{ rows: Row[]; notes: string[] }> {
  const tokens = {
    marketer: await Promise.all(
      Array.from({ length: marketers }, (_, id) => marketerToken(String(id))),
    ),
    'team leader': await Promise.all(
      Array.from({ length: marketers }, (_, id) =>
        marketerToken(String(id), 'team_leader_marketing', { team: teamOf(id) }),
      ),
    ),
  };
  const label = database.label;
  const result = await withOurServer(
    database,
    `marketer-stats-${label.toLowerCase()}`,
    distDir,
    scratch,
    { MARKETER_AUTH_SECRET: e2eMarketerAuthSecret, ...fromProxy },
    async (server, env) => {
      log(`marketer stats ${label}: seeding ${signUpRows.toLocaleString('en')} sign-ups`);
      const seeding = performance.now();
      await seed(env.DATABASE_URL ?? '', marketers);
      const seeded = performance.now() - seeding;
      const results = [];
      for (const { who, connections } of runs) {
        log(`marketer stats ${label}: ${who}, ${connections} connection(s), ${seconds} s`);
        let next = 0;
        results.push(
          await autocannon({
            url: server.origin,
            connections,
            duration: seconds,
            requests: [
              {
                method: 'GET',
                path: `/api/marketer/stats?days=${days}`,
                setupRequest: (request) => {
                  const user = next++ % marketers;
                  return {
                    ...request,
                    headers: {
                      authorization: `Bearer ${tokens[who][user]}`,
                      'x-forwarded-for': addressOf(user),
                    },
                  };
                },
              },
            ],
          }),
        );
      }
      return { seeded, results };
    },
  );
  const prefix = `Marketer stats ${label}`;
  const failed = (run: Result) => run.non2xx + run.errors + run.timeouts;
  const what = ({ who, connections }: Run) =>
    who === 'marketer'
      ? `${connections} at once`
      : `a team leader of ${teamSize} members, ${connections} at once`;
  return {
    rows: result.results.map((run, index) => {
      const measured = runs[index]!;
      const figure = `${prefix}: 90 days, 1M sign-ups stored, ${what(measured)}: p50 / p99 / max (${seconds} s)`;
      const latency = `${ms(run.latency.p50)} / ${ms(run.latency.p99)} / ${ms(run.latency.max)}`;
      const target = measured.maxP99;
      return target === undefined
        ? row(figure, latency)
        : row(figure, latency, {
            target: `p99 < ${ms(target)}, no error`,
            met: run.latency.p99 < target && failed(run) === 0,
          });
    }),
    notes: [
      `${prefix}: ${result.results.map((run, index) => `${what(runs[index]!)}, ${run.requests.total} requests (${run.requests.average.toFixed(0)}/s), ${failed(run)} failed${failed(run) === 0 ? '' : ` (${JSON.stringify(run.statusCodeStats)})`}`).join('; ')}; seeded ${signUpRows.toLocaleString('en')} sign-ups (a tenth of the leads clients) and ${(marketers * days * packages.length).toLocaleString('en')} visit rows in ${ms(result.seeded)}.`,
    ],
  };
}
