import type { Kysely } from 'kysely';
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
// countAll, only kept. Today is always counted live.

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

/** Days counted in one statement, at most, as they are kept. */
const daysPerCount = 10;

/** Kept rows written in one transaction, at most (a day's are never split). */
const rowsPerTransaction = 10_000;

const day = (time: number) => new Date(time).toISOString().slice(0, 10);
/** The UTC day after `date` (YYYY-MM-DD). */
export const dayAfter = (date: string) => day(Date.parse(`${date}T00:00:00Z`) + 86_400_000);
/** The days from `since` to before `until`. */
const dayCount = (since: string, until: string) =>
  (Date.parse(until) - Date.parse(since)) / 86_400_000;

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
      const unkept = await daysToKeep(db, name, since, live);
      // The days not kept as they are now (after a change, or all of them after a deploy) are
      // counted live, each run of them in one count; the others are read as kept; today live.
      const [kept, ...counted] = await Promise.all([
        unkept.days.length === dayCount(since, live)
          ? []
          : db
              .selectFrom('count_rollups')
              .select((eb) => [
                ...keys,
                ...countColumns.map((column) => eb.fn.sum<number | string>(column).as(column)),
              ])
              .where('by', '=', name)
              .where('day', '>=', since)
              .where('day', '<', live)
              .$if(unkept.days.length > 0, (q) => q.where('day', 'not in', unkept.days))
              .$if(keys.length > 0, (q) => q.groupBy([...keys]))
              .execute(),
        ...runsOf(unkept.days, Infinity).map((run) =>
          countAll(db, by, { since: run[0], until: dayAfter(run.at(-1)!) }),
        ),
        // Bounded on both sides, the day's rows are read by range (nothing is later than today).
        countAll(db, by, { since: live, until: dayAfter(day(now.getTime())) }),
      ]);
      // Once counted: the run would otherwise slow this answer down.
      if (unkept.days.length > 0 && !closed && !keeping.has(name)) {
        keeping.add(name);
        queued = queued
          .then(() => keep(database, keys, name, unkept, now, () => closed))
          .catch(onError)
          .finally(() => keeping.delete(name));
      }
      return addUpCounts(
        [
          ...kept,
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

/** The finished days not kept as they are now, and each day's changes as read. */
interface Unkept {
  days: string[];
  changesOf: (date: string) => number;
}

/**
 * The days from `since` to `until` whose kept counts are missing, or older than their changes
 * or the count rule. The changes are read before the days are counted: a change committed
 * meanwhile leaves a day kept as older than it is, so it is counted again, never the other way.
 */
async function daysToKeep(
  db: Kysely<Tables>,
  name: string,
  since: string,
  until: string,
): Promise<Unkept> {
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
      .select(['day', 'version', 'changes'])
      .where('by', '=', name)
      .where('day', '>=', since)
      .where('day', '<', until)
      .execute(),
  ]);
  const changesOf = new Map(changes.map((row) => [row.day, Number(row.changes)]));
  const keptOf = new Map(kept.map((row) => [row.day, row]));
  const asOf = (date: string) => (changesOf.get(everyDay) ?? 0) + (changesOf.get(date) ?? 0);
  const days: string[] = [];
  for (let date = since; date < until; date = dayAfter(date)) {
    const held = keptOf.get(date);
    if (held?.version !== rollupVersion || Number(held.changes) !== asOf(date)) days.push(date);
  }
  return { days, changesOf: asOf };
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
  { days, changesOf }: Unkept,
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
      const current = await trx
        .selectFrom('count_day_changes')
        .select(['day', 'changes'])
        .where('day', 'in', [...batch, everyDay])
        .execute();
      const changes = new Map(current.map((row) => [row.day, Number(row.changes)]));
      const unchanged = batch.filter(
        (date) => (changes.get(everyDay) ?? 0) + (changes.get(date) ?? 0) === changesOf(date),
      );
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
      await trx
        .insertInto('count_rollup_days')
        .values(
          unchanged.map((date) => ({
            by: name,
            day: date,
            version: rollupVersion,
            changes: changesOf(date),
          })),
        )
        .onConflict((oc) =>
          oc.columns(['by', 'day']).doUpdateSet((eb) => ({
            version: eb.ref('excluded.version'),
            changes: eb.ref('excluded.changes'),
          })),
        )
        .execute();
    });
  }
}
