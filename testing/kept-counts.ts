import { expect } from 'vitest';
import { statsPeriods } from '../src/domain/marketer-stats';
import { addDays, longestRange, periodDays } from '../src/domain/program-stats';
import { keptKeys } from '../src/server/count-day';
import { createCountKeeper, createCountPeriods, keptDays } from '../src/server/count-rollups';
import { compareIds, countAll, type Count, type CountKey } from '../src/server/counts';
import type { Database } from '../src/server/db/schema';

const order = (rows: Count<CountKey>[]) =>
  rows.map((row) => JSON.stringify(row, Object.keys(row).sort())).sort((a, b) => compareIds(a, b));

/**
 * Every server test's last check (buildTestApp runs it as its app closes): the finished days are
 * kept as the keeper keeps them, and the programme's counts of each period it shows and of the
 * longest range's previous period (which ends before today), by each key, read as kept, are
 * what a live count of the same days gives (a test that stores a row
 * dated after its app's clock leaves it out of both). So each test that writes also tests that its
 * writes make their days counted again. A database out of reach (an outage test) checks nothing.
 */
export async function expectKeptCountsLive(
  database: Database,
  now: Date,
  flush: () => Promise<void>,
): Promise<void> {
  try {
    // The visits noted in memory are written first: none is written between the two counts.
    await flush();
    await createCountKeeper(database, { now: () => now, onError: () => {} }).keep(now);
    const today = now.toISOString().slice(0, 10);
    const periods = [
      ...statsPeriods.map((days) => periodDays({ days }, today)),
      // One that ends before today, as a range or a previous period may: the longest range's
      // previous period, the furthest back the page reads (the oldest kept days). One more
      // period costs each test a read of every key, kept and live.
      { from: addDays(today, 1 - keptDays), to: addDays(today, -longestRange) },
    ];
    // A period of today alone is counted live both ways: only periods with finished days.
    const cases = periods
      .filter(({ from }) => from < today)
      .flatMap((period) => keptKeys.map((keys) => ({ ...period, keys })));
    const [kept, live] = await Promise.all([
      // One after the other: a transaction is one connection, which runs one query at a time.
      createCountPeriods(database).read(async (count) => {
        const counted = [];
        for (const { keys, from, to } of cases) {
          counted.push(await count(keys, from, now, addDays(to, 1)));
        }
        return counted;
      }),
      Promise.all(
        cases.map(({ keys, from, to }) =>
          countAll(database.db, keys, { since: from, until: addDays(to, 1) }),
        ),
      ),
    ]);
    for (const [index, { from, to, keys }] of cases.entries()) {
      expect(order(kept[index]!), `kept counts by ${keys.join(', ')}, ${from} to ${to}`).toEqual(
        order(live[index]!),
      );
    }
  } catch (error) {
    if (!database.isUnavailable(error)) throw error;
  }
}
