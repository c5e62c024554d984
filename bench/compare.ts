import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { load, postgresDatabase, signUps, sqliteDatabase, withOurServer } from './api';
import { median } from './lighthouse';

// `npm run bench:compare -- OTHER_DIST [THIS_DIST]`: sign-ups per second of two builds of the
// server (another commit's `dist/`, checked out and built beside this one, and this one's),
// on SQLite and on PostgreSQL (TEST_DATABASE_URL), taking turns A B A B A B so that neither
// gets the quieter moments; the medians and their ratio. For a change that must not cost
// throughput (docs/performance.md).
const [other, own = 'dist'] = process.argv.slice(2);
if (other === undefined) {
  console.error('usage: npm run bench:compare -- OTHER_DIST [THIS_DIST]');
  process.exit(2);
}
const builds = { before: resolve(other), after: resolve(own) };
const rounds = 3;
const seconds = 10;
// On a fresh clone bench/results (which git ignores) is not there yet.
mkdirSync(resolve('bench/results'), { recursive: true });
const scratch = mkdtempSync(join(resolve('bench/results'), 'compare-'));
const databases = [
  sqliteDatabase(scratch),
  ...(process.env.TEST_DATABASE_URL ? [postgresDatabase(process.env.TEST_DATABASE_URL)] : []),
];

for (const database of databases) {
  const rates: Record<keyof typeof builds, number[]> = { before: [], after: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [name, distDir] of Object.entries(builds) as [keyof typeof builds, string][]) {
      const run = `${database.label}-${name}-${round}`;
      const rate = await withOurServer(database, run, distDir, scratch, {}, async (server) => {
        const next = signUps();
        await load(server.origin, 2, next);
        const { result } = await load(server.origin, seconds, next);
        return result.requests.average;
      });
      rates[name].push(rate);
      console.log(`${run}: ${Math.round(rate)} sign-ups/s`);
    }
  }
  const before = median(rates.before);
  const after = median(rates.after);
  console.log(
    `${database.label}: before ${Math.round(before)}, after ${Math.round(after)} sign-ups/s (median of ${rounds}), ${(after / before).toFixed(2)}×`,
  );
}
