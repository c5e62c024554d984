import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import {
  addUpKept,
  countColumns,
  countKept,
  countKeys,
  type CountKey,
  type KeptCount,
} from './counts';
import type { CountRollupsTable, Tables } from './db/schema';

// A finished day's count as the keeper keeps it (count-rollups.ts): counted once by every key
// and projected onto each kept key. Apart from the rest, as it is the keeper's heaviest work in
// JavaScript: on SQLite the counts' thread runs it (db/sqlite-reader-thread.ts), so that adding
// up a day's thousands of rows never holds the event loop that answers sign-ups.

/** The keys the programme's page counts by: the ones kept. */
export const keptKeys = [
  ['day'],
  ['marketing_id'],
  ['utm_source', 'utm_campaign'],
  ['package_key'],
] as const satisfies readonly (readonly CountKey[])[];

/** This module's code as it runs (built, the chunk that holds it): part of the kept rows' version. */
export const countDayRules = readFileSync(new URL(import.meta.url), 'utf8');

/**
 * The day from `date` to before `until` (the next day) counted by every key, as the rows it is
 * kept as by each of keptKeys, in their order.
 */
export async function countDay(
  db: Kysely<Tables>,
  date: string,
  until: string,
): Promise<CountRollupsTable[][]> {
  const counted = await countKept(db, countKeys, { since: date, until });
  return keptKeys.map((keys) => project(counted, keys, date));
}

/** One day's count by every key, projected onto one kept key, added up as countAll adds up. */
function project(
  counted: KeptCount[],
  keys: (typeof keptKeys)[number],
  date: string,
): CountRollupsTable[] {
  return addUpKept(counted, keys)
    .filter((row) => countColumns.some((column) => row[column] > 0))
    .map((row) => {
      const kept = {
        by: keys.join(','),
        day: date,
        marketing_id: '',
        package_key: '',
        utm_source: '',
        utm_campaign: '',
      } as CountRollupsTable;
      for (const key of keys) if (key !== 'day') kept[key] = row[key] ?? '';
      for (const column of countColumns) kept[column] = row[column];
      return kept;
    });
}
