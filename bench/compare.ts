import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { load, postgresDatabase, signUps, sqliteDatabase, timedSignUp, withOurServer } from './api';
import { median } from './lighthouse';
import { formStamp } from './form-stamps';
import { solvedChallenges } from './solved-challenges';

// `npm run bench:compare -- OTHER_DIST [THIS_DIST] [--one-link] [--altcha] [--one-at-a-time]
// [--utm] [--stamp] [--only DATABASE] [--rounds N]`:
// sign-ups per second
// of two builds of the server (another commit's `dist/`, checked out and built beside this one,
// and this one's), on SQLite and on PostgreSQL (TEST_DATABASE_URL), taking turns A B A B A B so
// that neither gets the quieter moments; the medians and their ratio. Only 201 answers count;
// any other answer or time-out is printed. For a change that must not cost throughput
// (docs/performance.md).
//   --one-link  every sign-up through one marketer's link to one package (a link shared widely,
//               or a script hammering one), rather than spread over 97 marketers.
//   --altcha    both servers with ALTCHA_HMAC_KEY set, each sign-up with a solved challenge.
//   --one-at-a-time  the time of one sign-up rather than sign-ups per second: 400 sent one after
//               another (after 100 to warm up), each from an address of its own (through
//               TRUST_PROXY), so that same_address flags none; the median answer of each run.
//               With --one-link, after the warm-up's flood too: the time of a sign-up through a
//               link that has taken thousands that day.
//   --utm       each sign-up with campaign parameters (utm_source, utm_campaign), as a link
//               shared with them brings.
//   --stamp     both servers with FORM_STAMP_KEY set, each sign-up with a valid stamp of a form
//               of its own served a minute before, as the form sends it (so that the checks
//               of the stamp, fast and reused_form, run on every sign-up, and flag none).
//   --only sqlite|postgres  one database, to repeat a run where the other is not in question.
//   --rounds N  N runs of each build rather than 3: a difference of a few per cent is told from
//               the spread only over more of them.
const { positionals, values: options } = parseArgs({
  allowPositionals: true,
  options: {
    'one-link': { type: 'boolean' },
    altcha: { type: 'boolean' },
    'one-at-a-time': { type: 'boolean' },
    utm: { type: 'boolean' },
    stamp: { type: 'boolean' },
    only: { type: 'string' },
    rounds: { type: 'string', default: '3' },
  },
});
const [other, own = 'dist'] = positionals;
const rounds = Number(options.rounds);
if (
  other === undefined ||
  ![undefined, 'sqlite', 'postgres'].includes(options.only) ||
  !Number.isInteger(rounds) ||
  rounds < 1
) {
  console.error(
    'usage: npm run bench:compare -- OTHER_DIST [THIS_DIST] [--one-link] [--altcha] [--one-at-a-time] [--utm] [--stamp] [--only sqlite|postgres] [--rounds N]',
  );
  process.exit(2);
}
const builds = { before: resolve(other), after: resolve(own) };
const warmUpSeconds = 2;
const seconds = 10;
// More than the fastest run answers in its warm-up and load together.
const challengesPerRun = 150_000;
const hmacKey = 'bench-'.repeat(6);
const stampKey = 'stamp-'.repeat(6);
// On a fresh clone bench/results (which git ignores) is not there yet.
mkdirSync(resolve('bench/results'), { recursive: true });
const scratch = mkdtempSync(join(resolve('bench/results'), 'compare-'));
const databases = [
  ...(options.only === 'postgres' ? [] : [sqliteDatabase(scratch)]),
  ...(process.env.TEST_DATABASE_URL && options.only !== 'sqlite'
    ? [postgresDatabase(process.env.TEST_DATABASE_URL)]
    : []),
];
// Each run has a store of its own, so the same challenges serve every run.
const challenges = options.altcha ? await solvedChallenges(hmacKey, challengesPerRun) : [];
const env = {
  ...(options.altcha ? { ALTCHA_HMAC_KEY: hmacKey } : {}),
  ...(options.stamp ? { FORM_STAMP_KEY: stampKey } : {}),
  ...(options['one-at-a-time'] ? { TRUST_PROXY: '127.0.0.1' } : {}),
};
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

console.log(
  `workload: ${options['one-link'] ? 'one link' : '97 links'}, ALTCHA ${options.altcha ? 'on' : 'off'}` +
    (options.utm ? ', campaign parameters' : '') +
    (options.stamp ? ', form stamps' : '') +
    (options['one-at-a-time'] ? ', one sign-up at a time' : ''),
);
for (const database of databases) {
  // value: sign-ups a second, or with --one-at-a-time a sign-up's median answer in ms.
  const runs: Record<keyof typeof builds, { value: number; p99: number }[]> = {
    before: [],
    after: [],
  };
  for (let round = 0; round < rounds; round++) {
    for (const [name, distDir] of Object.entries(builds) as [keyof typeof builds, string][]) {
      const run = `${database.label}-${name}-${round}`;
      const measured = await withOurServer(database, run, distDir, scratch, env, async (server) => {
        const next = signUps({ oneLink: options['one-link'], utm: options.utm });
        let sent = 0;
        // A millisecond apart: each sign-up's form is a page served for it alone.
        const servedFrom = Date.now() - 60_000;
        const nextSignUp = () => {
          const payload = next();
          sent += 1;
          return {
            ...payload,
            ...(options.altcha ? { altcha: challenges[sent - 1] } : {}),
            ...(options.stamp ? { form_stamp: formStamp(stampKey, servedFrom - sent) } : {}),
          };
        };
        if (options['one-at-a-time']) {
          if (options['one-link']) await load(server.origin, warmUpSeconds, nextSignUp);
          const times = await oneAtATime(server.origin, nextSignUp);
          console.log(
            `${run}: median ${times.median.toFixed(2)} ms, p99 ${times.p99.toFixed(2)} ms, load ${loadAverage()}`,
          );
          return { value: times.median, p99: times.p99 };
        }
        await load(server.origin, warmUpSeconds, nextSignUp);
        const { result, statuses } = await load(server.origin, seconds, nextSignUp);
        const created = statuses.get(201) ?? 0;
        const others = [...statuses].filter(([status]) => status !== 201);
        const refused = others.length === 0 ? '' : `; other answers ${JSON.stringify(others)}`;
        const failed =
          result.timeouts + result.errors === 0
            ? ''
            : `; ${result.timeouts} time-outs, ${result.errors} errors`;
        console.log(
          `${run}: ${Math.round(created / seconds)} sign-ups/s, p99 ${result.latency.p99} ms, load ${loadAverage()}${refused}${failed}`,
        );
        return { value: created / seconds, p99: result.latency.p99 };
      });
      runs[name].push(measured);
    }
  }
  const value = (name: keyof typeof builds) => median(runs[name].map((run) => run.value));
  const p99 = (name: keyof typeof builds) => median(runs[name].map((run) => run.p99));
  const ratio = (value('after') / value('before')).toFixed(2);
  console.log(
    options['one-at-a-time']
      ? `${database.label}: a sign-up's median answer, before ${value('before').toFixed(2)} ms, after ${value('after').toFixed(2)} ms (median of ${rounds}), ${ratio}×; p99 ${p99('before').toFixed(2)} → ${p99('after').toFixed(2)} ms`
      : `${database.label}: before ${Math.round(value('before'))}, after ${Math.round(value('after'))} sign-ups/s (median of ${rounds}), ${ratio}×; p99 ${p99('before')} → ${p99('after')} ms`,
  );
}

/** Sign-ups sent one after another, each from a new address: the median and p99 answer, in ms. */
async function oneAtATime(origin: string, nextSignUp: () => object) {
  let address = 0;
  const post = () => {
    address += 1;
    return timedSignUp(origin, nextSignUp(), {
      'x-forwarded-for': `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
    });
  };
  for (let i = 0; i < 100; i++) await post();
  const times: number[] = [];
  for (let i = 0; i < 400; i++) times.push(await post());
  times.sort((a, b) => a - b);
  return { median: median(times), p99: times[Math.floor(times.length * 0.99)] ?? Number.NaN };
}
