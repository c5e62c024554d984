import { sql, type Kysely } from 'kysely';
import {
  addUpCounts,
  countAll,
  countColumns,
  countKeys,
  type Count,
  type CountKey,
  type Counts,
} from './counts';
import { refreshStatistics, writeTransaction } from './db/dialect';
import type { CountRollupsTable, Database, Tables } from './db/schema';

// The programme's page counts a whole period four ways; read live, a million sign-ups take
// seconds (docs/performance.md). A finished day's counts change only when something changes what
// they counted — a lead's status, a decision on its credit, an erasure or retention — and each
// of those says so in its own transaction (countsChanged). So each finished day is counted by
// countAll, kept by the keys asked, and counted again only after a change: the count is still
// countAll, only kept. Today is always counted live. A finished week whose seven days are kept
// is kept as well, as their sum, so that a period reads a row a key for each whole week in it.

/**
 * The count rule the kept days were counted by: a change to what countAll counts changes it, and
 * every kept day is then counted again.
 */
const rollupVersion = '2026-11-27';

/** A change that may touch any day (a campaign renamed on every day by an erasure). */
const everyDay = '*';

/**
 * Taken by a transaction that writes kept days, and by a deletion, which may forget them all:
 * the two take turns, so that no day counted before a deletion is kept after it.
 */
export const countRollupsLock = 'count-rollups';

/**
 * A day is finished this long after it ends: a sign-up commits within seconds of the time it
 * came (its statements' time-outs are 5 s), a visit within a second of its day.
 */
const settlingMs = 60_000;

/** Kept days older than this are dropped: no period asks for them. */
const keptDays = 100;

/** The rows of whole weeks (Monday to Sunday, UTC) kept by `name`, apart from its days'. */
const weekly = (name: string) => `${name} weekly`;
const weekDays = 7;

/** Days counted in one statement, at most, as they are kept. */
const daysPerCount = 10;

/** Kept rows written in one transaction, at most (a day's are never split). */
const rowsPerTransaction = 10_000;

const day = (time: number) => new Date(time).toISOString().slice(0, 10);
/** The UTC day after `date` (YYYY-MM-DD). */
export const dayAfter = (date: string) => day(Date.parse(`${date}T00:00:00Z`) + 86_400_000);

/** The days from `since` to before `until`, in order. */
function daysFrom(since: string, until: string): string[] {
  const days: string[] = [];
  for (let date = since; date < until; date = dayAfter(date)) days.push(date);
  return days;
}

/** The weeks wholly from `since` to before `until`: each week's days, Monday first. */
function weeksFrom(since: string, until: string): string[][] {
  const days = daysFrom(since, until);
  return days
    .map((_, i) => days.slice(i, i + weekDays))
    .filter((week) => week.length === weekDays && new Date(week[0]!).getUTCDay() === 1);
}

/** Each day's changes, as read from count_day_changes: its own and those of every day. */
function changesAsOf(rows: { day: string; changes: number | string }[]) {
  const changes = new Map(rows.map((row) => [row.day, Number(row.changes)]));
  return (date: string) => (changes.get(everyDay) ?? 0) + (changes.get(date) ?? 0);
}

/** What a week is kept as of: its days' changes added up, which move whenever one does. */
const weekChanges = (week: readonly string[], changesOf: (date: string) => number) =>
  week.reduce((sum, date) => sum + changesOf(date), 0);

/** Days (in order) as runs of consecutive days, each of `most` days at most. */
function runsOf(days: readonly string[], most: number): string[][] {
  const runs: string[][] = [];
  for (const date of days) {
    const run = runs.at(-1);
    if (run !== undefined && run.length < most && dayAfter(run.at(-1)!) === date) run.push(date);
    else runs.push([date]);
  }
  return runs;
}

/**
 * Says, in the transaction that changes them, that the counts of these UTC days (YYYY-MM-DD)
 * changed: they are counted again when next asked for. Every day: what was kept is forgotten
 * at once (an erased person's own campaign must not stay named in a kept day that no period
 * asks for again); the transaction holds countRollupsLock.
 */
export async function countsChanged(
  trx: Kysely<Tables>,
  days: readonly string[] | 'every day',
): Promise<void> {
  const changed = days === 'every day' ? [everyDay] : [...new Set(days)].sort();
  if (changed.length === 0) return;
  if (days === 'every day') {
    await trx.deleteFrom('count_rollups').execute();
    await trx.deleteFrom('count_rollup_days').execute();
  }
  await trx
    .insertInto('count_day_changes')
    .values(changed.map((changedDay) => ({ day: changedDay, changes: 1 })))
    .onConflict((oc) =>
      oc.column('day').doUpdateSet((eb) => ({
        changes: eb(eb.ref('count_day_changes.changes'), '+', 1),
      })),
    )
    .execute();
}

/** The programme's counts over periods that end today, the finished days kept. */
export interface CountPeriods {
  /**
   * countAll(db, by, { since }), `since` a UTC day: the finished days as kept and today live;
   * the days not kept as they are now (changed since, or never kept) live too, and counted and
   * kept meanwhile, for the next answers: a lead's status changed by the CRM costs the next
   * answer a count of its day, not of the whole period.
   */
  count<K extends CountKey>(by: readonly K[], since: string, now: Date): Promise<Count<K>[]>;
  /** Stops keeping days: waits for the run of days being counted and written. */
  close(): Promise<void>;
}

export function createCountPeriods(
  database: Database,
  onError: (error: unknown) => void,
): CountPeriods {
  const { db } = database;
  // The keys whose days are being kept, and their keepings queued one after the other: the
  // answers counted meanwhile share the database with one keeping at most.
  const keeping = new Set<string>();
  let queued = Promise.resolve();
  let closed = false;

  return {
    async count<K extends CountKey>(
      by: readonly K[],
      since: string,
      now: Date,
    ): Promise<Count<K>[]> {
      const live = day(now.getTime() - settlingMs);
      if (since >= live) return countAll(db, by, { since });
      const keys = countKeys.filter((key) => (by as readonly CountKey[]).includes(key));
      const name = keys.join(',');
      const unkept = await daysToKeep(db, keys, since, live);
      // The weeks kept as they are now are read a row a key, the other days kept a row a key
      // and day; the days not kept as they are now (after a change, or all of them after a
      // deploy) are counted live, each run of them in one count; today live.
      const inWeeks = new Set(unkept.keptWeeks.flat());
      const [weeks, days, ...counted] = await Promise.all([
        readKept(
          db,
          keys,
          weekly(name),
          unkept.keptWeeks.map((week) => week[0]!),
        ),
        readKept(
          db,
          keys,
          name,
          daysFrom(since, live).filter((date) => !inWeeks.has(date) && !unkept.days.includes(date)),
        ),
        ...runsOf(unkept.days, Infinity).map((run) =>
          countAll(db, by, { since: run[0], until: dayAfter(run.at(-1)!) }),
        ),
        // Bounded on both sides, the day's rows are read by range (nothing is later than today).
        countAll(db, by, { since: live, until: dayAfter(day(now.getTime())) }),
      ]);
      // Once counted: the run would otherwise slow this answer down.
      const toKeep = unkept.days.length > 0 || unkept.weeks.length > 0;
      if (toKeep && !closed && !keeping.has(name)) {
        keeping.add(name);
        queued = queued
          .then(() => keep(database, keys, name, unkept, now, () => closed))
          .catch(onError)
          .finally(() => keeping.delete(name));
      }
      return addUpCounts(
        [
          ...weeks,
          ...days,
          // countAll's null for none, as kept: ''.
          ...counted.flat().map((row) => {
            const group: Record<string, string | number | null> = { ...row };
            for (const key of keys) group[key] ??= '';
            return group as Record<CountKey, string> & Counts;
          }),
        ],
        by,
      );
    },

    async close() {
      closed = true;
      await queued;
    },
  };
}

/**
 * The finished days not kept as they are now, the whole weeks kept as they are now and those
 * not, and each day's changes as read.
 */
interface Unkept {
  days: string[];
  keptWeeks: string[][];
  weeks: string[][];
  changesOf: (date: string) => number;
}

/**
 * The days from `since` to `until` whose kept counts are missing, or older than their changes
 * or the count rule; and the weeks, by keys without the day. The changes are read before the
 * days are counted: a change committed meanwhile leaves a day kept as older than it is, so it
 * is counted again, never the other way.
 */
async function daysToKeep(
  db: Kysely<Tables>,
  keys: readonly CountKey[],
  since: string,
  until: string,
): Promise<Unkept> {
  const name = keys.join(',');
  const [changes, kept] = await Promise.all([
    db
      .selectFrom('count_day_changes')
      .select(['day', 'changes'])
      .where((eb) =>
        eb.or([eb('day', '=', everyDay), eb.and([eb('day', '>=', since), eb('day', '<', until)])]),
      )
      .execute(),
    db
      .selectFrom('count_rollup_days')
      .select(['by', 'day', 'version', 'changes'])
      .where('by', 'in', [name, weekly(name)])
      .where('day', '>=', since)
      .where('day', '<', until)
      .execute(),
  ]);
  const changesOf = changesAsOf(changes);
  const keptOf = new Map(kept.map((row) => [`${row.by}|${row.day}`, row]));
  const isKept = (by: string, date: string, changes: number) => {
    const held = keptOf.get(`${by}|${date}`);
    return held?.version === rollupVersion && Number(held.changes) === changes;
  };
  // A count by day keeps its days alone: a week's row would be one day of the chart.
  const weeks = keys.includes('day') ? [] : weeksFrom(since, until);
  const weekKept = (week: string[]) => isKept(weekly(name), week[0]!, weekChanges(week, changesOf));
  const keptWeeks = weeks.filter(weekKept);
  const inKeptWeeks = new Set(keptWeeks.flat());
  return {
    days: daysFrom(since, until).filter(
      (date) => !inKeptWeeks.has(date) && !isKept(name, date, changesOf(date)),
    ),
    keptWeeks,
    weeks: weeks.filter((week) => !weekKept(week)),
    changesOf,
  };
}

/** The kept rows of `by` (a key's days, or its weeks) on the days given, added up by `keys`. */
async function readKept(db: Kysely<Tables>, keys: readonly CountKey[], by: string, days: string[]) {
  if (days.length === 0) return [];
  return db
    .selectFrom('count_rollups')
    .select((eb) => [
      ...keys,
      ...countColumns.map((column) => eb.fn.sum<number | string>(column).as(column)),
    ])
    .where('by', '=', by)
    .where('day', 'in', days)
    .$if(keys.length > 0, (q) => q.groupBy([...keys]))
    .execute();
}

/**
 * Counts and keeps, by `keys`, the days given, a run of up to daysPerCount days a count
 * (within PostgreSQL's statement time-out, and on SQLite a short wait for the requests between
 * two counts); a day changed while it was counted is left unkept, for the next run.
 */
async function keep(
  database: Database,
  keys: readonly CountKey[],
  name: string,
  { days, weeks, changesOf }: Unkept,
  now: Date,
  stopped: () => boolean,
): Promise<void> {
  let written = 0;
  for (const span of runsOf(days, daysPerCount)) {
    // The server is closing: what is kept so far stays, the rest waits for the next run.
    if (stopped()) return;
    const counted = await countAll(
      database.db,
      countKeys.filter((key) => key === 'day' || keys.includes(key)),
      { since: span[0], until: dayAfter(span.at(-1)!) },
    );
    const rowsOf = new Map<string, CountRollupsTable[]>(span.map((date) => [date, []]));
    for (const row of counted) {
      rowsOf.get(row.day!)?.push({
        by: name,
        marketing_id: '',
        package_key: '',
        utm_source: '',
        utm_campaign: '',
        ...Object.fromEntries(keys.map((key) => [key, row[key] ?? ''])),
        day: row.day!,
        ...Object.fromEntries(countColumns.map((column) => [column, row[column]])),
      } as CountRollupsTable);
    }
    await store(database, name, span, rowsOf, changesOf);
    written += counted.length;
  }
  for (const week of weeks) {
    if (stopped()) return;
    written += await storeWeek(database, name, week);
  }
  const oldest = day(now.getTime() - keptDays * 86_400_000);
  await writeTransaction(database, [countRollupsLock], async (trx) => {
    await trx.deleteFrom('count_rollups').where('day', '<', oldest).execute();
    await trx.deleteFrom('count_rollup_days').where('day', '<', oldest).execute();
    await trx
      .deleteFrom('count_day_changes')
      .where('day', '<', oldest)
      .where('day', '<>', everyDay)
      .execute();
  });
  // A day counted again after a change leaves the statistics as they were; a first filling
  // does not (and costs an analysis of the whole table, a tenth of a second at a million leads).
  if (written >= rowsPerTransaction) await refreshStatistics(database, 'count_rollups');
}

/** Writes the days' rows, some thousands a transaction, those whose changes are as counted. */
async function store(
  database: Database,
  name: string,
  days: string[],
  rowsOf: Map<string, CountRollupsTable[]>,
  changesOf: (date: string) => number,
): Promise<void> {
  const batches: string[][] = [[]];
  let batchRows = 0;
  for (const date of days) {
    const rows = rowsOf.get(date)?.length ?? 0;
    if (batchRows > 0 && batchRows + rows > rowsPerTransaction) {
      batches.push([]);
      batchRows = 0;
    }
    batches.at(-1)!.push(date);
    batchRows += rows;
  }
  for (const batch of batches) {
    await writeTransaction(database, [countRollupsLock], async (trx) => {
      // The changes as they are now, under the lock a deletion takes: a day changed since it was
      // counted is not kept.
      const current = await changesNow(trx, batch);
      const unchanged = batch.filter((date) => current(date) === changesOf(date));
      if (unchanged.length === 0) return;
      await trx
        .deleteFrom('count_rollups')
        .where('by', '=', name)
        .where('day', 'in', unchanged)
        .execute();
      const rows = unchanged.flatMap((date) => rowsOf.get(date) ?? []);
      // SQLite takes up to 32,766 values a statement (17 a row).
      for (let start = 0; start < rows.length; start += 1_000) {
        await trx
          .insertInto('count_rollups')
          .values(rows.slice(start, start + 1_000))
          .execute();
      }
      await markKept(
        trx,
        name,
        unchanged.map((date) => ({ day: date, changes: changesOf(date) })),
      );
    });
  }
}

/**
 * Keeps a week as its seven days kept added up, if they are all kept as they are now (under the
 * lock a deletion takes); the rows it wrote.
 */
async function storeWeek(database: Database, name: string, week: string[]): Promise<number> {
  const monday = week[0]!;
  return writeTransaction(database, [countRollupsLock], async (trx) => {
    const changesOf = await changesNow(trx, week);
    const kept = await trx
      .selectFrom('count_rollup_days')
      .select(['day', 'version', 'changes'])
      .where('by', '=', name)
      .where('day', 'in', week)
      .execute();
    const asKept = (row: (typeof kept)[number]) =>
      row.version === rollupVersion && Number(row.changes) === changesOf(row.day);
    if (kept.length < weekDays || !kept.every(asKept)) return 0;
    await trx
      .deleteFrom('count_rollups')
      .where('by', '=', weekly(name))
      .where('day', '=', monday)
      .execute();
    const keys = countKeys.filter((key) => key !== 'day');
    const { numInsertedOrUpdatedRows } = await trx
      .insertInto('count_rollups')
      .columns(['by', 'day', ...keys, ...countColumns])
      .expression(
        trx
          .selectFrom('count_rollups')
          .select((eb) => [
            sql<string>`cast(${weekly(name)} as text)`.as('by'),
            sql<string>`cast(${monday} as text)`.as('day'),
            ...keys,
            ...countColumns.map((column) => eb.fn.sum<number>(column).as(column)),
          ])
          .where('by', '=', name)
          .where('day', 'in', week)
          .groupBy(keys),
      )
      .executeTakeFirst();
    await markKept(trx, weekly(name), [{ day: monday, changes: weekChanges(week, changesOf) }]);
    return Number(numInsertedOrUpdatedRows ?? 0);
  });
}

/** The days' changes as they are now (in a transaction: under its locks). */
async function changesNow(trx: Kysely<Tables>, days: readonly string[]) {
  return changesAsOf(
    await trx
      .selectFrom('count_day_changes')
      .select(['day', 'changes'])
      .where('day', 'in', [...days, everyDay])
      .execute(),
  );
}

/** Says that `by`'s rows of these days are kept as of these changes, by this count rule. */
async function markKept(
  trx: Kysely<Tables>,
  by: string,
  days: { day: string; changes: number }[],
): Promise<void> {
  await trx
    .insertInto('count_rollup_days')
    .values(
      days.map(({ day: date, changes }) => ({ by, day: date, version: rollupVersion, changes })),
    )
    .onConflict((oc) =>
      oc.columns(['by', 'day']).doUpdateSet((eb) => ({
        version: eb.ref('excluded.version'),
        changes: eb.ref('excluded.changes'),
      })),
    )
    .execute();
}
