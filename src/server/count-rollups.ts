import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setImmediate as turn } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { campaignsPerLinkDay } from './campaigns';
import { countDay, countDayRules, keptKeys } from './count-day';
import {
  addUpCounts,
  countAll,
  countColumns,
  countKept,
  countKeys,
  countRules,
  type Count,
  type CountKey,
  type SummedCount,
} from './counts';
import { longestRange } from '../domain/program-stats';
import { databaseToday, withKeepingLock, writeTransaction } from './db/dialect';
import { migrationNames } from './db/migrate';
import type { CountRollupsTable, Database, Tables } from './db/schema';

// The programme's page counts a whole period four ways; read live, a million sign-ups take
// seconds (docs/performance.md). A finished day's counts change only when something writes one
// of the rows they count, and every such write marks its day in count_day_changes, in its own
// transaction (the triggers of the migration count-day-triggers). So the keeper, in the
// background, counts each finished day once by every key, projects that count onto the keys the
// page asks for, and keeps the rows; a day is counted again only after a write marked it. A
// request only reads: the days kept as they are now from count_rollups, the others and today
// live, all in one read transaction on the counts' own connection (docs/architecture.md).

/**
 * What the kept rows were counted by: the code of the count (counts.ts, count-day.ts) and of
 * this module as they run (built, the chunks that hold them), the campaigns' limits and the
 * database's migrations. A change to any forgets every kept day, with nothing to remember.
 */
const rulesVersion = createHash('sha256')
  .update(countRules)
  .update(countDayRules)
  .update(readFileSync(new URL(import.meta.url)))
  .update(JSON.stringify([keptKeys, campaignsPerLinkDay, migrationNames]))
  .digest('hex')
  .slice(0, 16);

/**
 * A day is final this long after it ends: a write to it later is marked by its trigger as any
 * other, but one that had begun before the day ended may commit a little after it.
 */
const settlingMs = 60_000;

/**
 * Finished days are kept this far back, older ones dropped: the programme's page compares a
 * range of up to a year (longestRange, 366 days) with the same number of days right before it.
 * A day further back is counted live when a range asks for it.
 */
export const keptDays = 2 * longestRange;

/** The rows of whole weeks (Monday to Sunday, UTC) kept by `name`, apart from its days'. */
const weekly = (name: string) => `${name} weekly`;
const weekDays = 7;

/**
 * Kept rows written in one transaction, at most: on SQLite the main thread writes them, a few
 * milliseconds five hundred, while sign-ups wait for the write lock.
 */
const rowsPerTransaction = 500;

/** A mark of a day being counted: the triggers mark its writes, no reader takes it as kept. */
const counting = { version: '', changes: -1 };

const day = (time: number) => new Date(time).toISOString().slice(0, 10);
const dayAfterDays = (date: string, days: number) =>
  day(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);
/** The UTC day after `date` (YYYY-MM-DD). */
export const dayAfter = (date: string) => dayAfterDays(date, 1);

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

/** Days (in order) as runs of consecutive days. */
function runsOf(days: readonly string[]): string[][] {
  const runs: string[][] = [];
  for (const date of days) {
    const run = runs.at(-1);
    if (run !== undefined && dayAfter(run.at(-1)!) === date) run.push(date);
    else runs.push([date]);
  }
  return runs;
}

/** Each day's changes as read; a week's are its days' added up, which move whenever one does. */
async function changesOf(db: Kysely<Tables>, days: readonly string[]) {
  const rows =
    days.length === 0
      ? []
      : await db
          .selectFrom('count_day_changes')
          .select(['day', 'changes'])
          .where('day', '>=', days[0]!)
          .where('day', '<=', days.at(-1)!)
          .execute();
  const changes = new Map(rows.map((row) => [row.day, Number(row.changes)]));
  return (date: string | readonly string[]) =>
    typeof date === 'string'
      ? (changes.get(date) ?? 0)
      : date.reduce((sum, one) => sum + (changes.get(one) ?? 0), 0);
}
type Changes = Awaited<ReturnType<typeof changesOf>>;

/** The `by` names of what is kept: each key's days, and its weeks when it has no day. */
const keptNames = () =>
  keptKeys.flatMap((keys) =>
    (keys as readonly CountKey[]).includes('day')
      ? [keys.join(',')]
      : [keys.join(','), weekly(keys.join(','))],
  );

/** Which of `by`'s days (or weeks, by their Monday) from `since` to before `until` are kept as they are now. */
async function keptAsNow(
  db: Kysely<Tables>,
  names: readonly string[],
  since: string,
  until: string,
  changes: Changes,
): Promise<Set<string>> {
  const weekOf = (monday: string) => daysFrom(monday, dayAfterDays(monday, weekDays));
  const marks = await db
    .selectFrom('count_rollup_days')
    .select(['by', 'day', 'version', 'changes'])
    .where('by', 'in', [...names])
    .where('day', '>=', since)
    .where('day', '<', until)
    .execute();
  return new Set(
    marks
      .filter(
        (mark) =>
          mark.version === rulesVersion &&
          Number(mark.changes) ===
            (mark.by.endsWith(' weekly') ? changes(weekOf(mark.day)) : changes(mark.day)),
      )
      .map((mark) => `${mark.by}|${mark.day}`),
  );
}

/**
 * Forgets at once the kept rows that name a campaign (an erased person's own, renamed
 * otherCampaign in the erasure's transaction): the renaming marked their days, which are
 * counted again without it.
 */
export async function forgetCampaign(
  trx: Kysely<Tables>,
  source: string,
  campaign: string,
): Promise<void> {
  const name = ['utm_source', 'utm_campaign'].join(',');
  await trx
    .deleteFrom('count_rollups')
    .where('by', 'in', [name, weekly(name)])
    .where('utm_source', '=', source)
    .where('utm_campaign', '=', campaign)
    .execute();
}

/**
 * A period's count by `by`, from `since` (a UTC day) to before `until` (the day after its last;
 * the day after today when absent), the finished days as kept; of one marketer's links alone
 * when `marketingId` is given, `by` then naming the marketer (their kept rows are the
 * marketers').
 */
export type CountPeriod = <K extends CountKey>(
  by: readonly K[],
  since: string,
  now: Date,
  until?: string,
  marketingId?: string,
) => Promise<Count<K>[]>;

/** The programme's counts over periods of days, the finished days as kept. */
export interface CountPeriods {
  /**
   * Runs `read` in one read transaction on the counts' connection, so that its counts agree with
   * each other and a day kept or changed meanwhile is read one way; each count is
   * countAll(reads, by, { since }): the days kept as they are now read, the others (changed
   * since, or not kept yet) and today counted live. `reads` is the same transaction, for what
   * else the answer reads beside its counts (the directory's names and teams).
   */
  read<T>(read: (count: CountPeriod, reads: Kysely<Tables>) => Promise<T>): Promise<T>;
}

export function createCountPeriods(
  database: Database,
  /** Told when a count found finished days not kept as they are now (the keeper's wake). */
  onUnkept: () => void = () => {},
): CountPeriods {
  return {
    read: (read) =>
      database.reads
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute((trx) =>
          read(
            (by, since, now, until, marketingId) =>
              countPeriod(trx, by, since, now, until, onUnkept, marketingId),
            trx,
          ),
        ),
  };
}

async function countPeriod<K extends CountKey>(
  trx: Kysely<Tables>,
  by: readonly K[],
  since: string,
  now: Date,
  until: string = dayAfter(day(now.getTime())),
  onUnkept: () => void,
  marketingId?: string,
): Promise<Count<K>[]> {
  const keys = countKeys.filter((key) => (by as readonly CountKey[]).includes(key));
  // A marketer's rows are found among the kept rows by their id: rows kept by another key
  // have none.
  if (marketingId !== undefined && !keys.includes('marketing_id')) {
    throw new Error("a marketer's count is by marketing_id");
  }
  const marketingIds = marketingId === undefined ? undefined : [marketingId];
  const live = day(now.getTime() - settlingMs);
  if (since >= live) return countAll(trx, by, { since, until, marketingIds });
  // The finished days of the period: up to the first day not final, or to its end.
  const finished = until < live ? until : live;
  // By day and another key: that key's kept days, read by day (one marketer's chart).
  const name = keys.filter((key) => key !== 'day').join(',') || 'day';
  const days = daysFrom(since, finished);
  const changes = await changesOf(trx, days);
  const kept = await keptAsNow(trx, [name, weekly(name)], since, finished, changes);
  // A count by day is kept by days alone: a week's row would be one day of the chart.
  const weeks = keys.includes('day')
    ? []
    : weeksFrom(since, finished).filter((week) => kept.has(`${weekly(name)}|${week[0]}`));
  const inWeeks = new Set(weeks.flat());
  const keptDays = days.filter((date) => !inWeeks.has(date) && kept.has(`${name}|${date}`));
  const unkept = days.filter((date) => !inWeeks.has(date) && !kept.has(`${name}|${date}`));
  if (unkept.length > 0) onUnkept();
  const rows: SummedCount[] = [
    ...(await readKept(
      trx,
      keys,
      weekly(name),
      weeks.map((week) => week[0]!),
      marketingId,
    )),
    ...(await readKept(trx, keys, name, keptDays, marketingId)),
  ];
  const counted = runsOf(unkept).map((run) => ({ since: run[0], until: dayAfter(run.at(-1)!) }));
  // The days not final yet (today, and yesterday in its first minute), when the period has them.
  if (until > live) counted.push({ since: live, until });
  for (const range of counted) rows.push(...(await countKept(trx, by, { ...range, marketingIds })));
  return addUpCounts(rows, by);
}

/**
 * The kept rows of `by` (a key's days, or its weeks) on the days given (of one marketer, when
 * given: a look-up a day in the kept rows' key), added up by `keys`.
 */
async function readKept(
  db: Kysely<Tables>,
  keys: readonly CountKey[],
  by: string,
  days: string[],
  marketingId?: string,
) {
  if (days.length === 0) return [];
  return db
    .selectFrom('count_rollups')
    .select((eb) => [
      ...keys,
      ...countColumns.map((column) => eb.fn.sum<number | string>(column).as(column)),
    ])
    .where('by', '=', by)
    .where('day', 'in', days)
    .$if(marketingId !== undefined, (q) => q.where('marketing_id', '=', marketingId!))
    .$if(keys.length > 0, (q) => q.groupBy([...keys]))
    .execute();
}

/** Keeps the finished days in the background (plugins/count-keeping.ts starts and stops it). */
export interface CountKeeper {
  /**
   * Counts and keeps every finished day of the last keptDays that is not kept as it is now, and
   * their weeks; the days kept are those of one instance at a time (on PostgreSQL: the others
   * find the lock taken and do nothing). Resolves when done, or when the keeper is stopped.
   */
  keep(now: Date): Promise<void>;
  /** Keeps now, unless a run is under way: a request found days not kept as they are now. */
  wake(): void;
  /** Keeps at once, then every `intervalMs`. */
  start(intervalMs: number): void;
  /** Stops after the day being kept. */
  stop(): Promise<void>;
}

export function createCountKeeper(
  database: Database,
  { now, onError }: { now: () => Date; onError: (error: unknown) => void },
): CountKeeper {
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const keep = (at: Date) =>
    withKeepingLock(database, (reads) => keepDays(database, reads, at, () => stopped));
  const wake = () => {
    if (stopped) return;
    running ??= keep(now())
      .catch(onError)
      .finally(() => (running = undefined));
  };
  return {
    keep,
    wake,
    start(intervalMs) {
      wake();
      timer = setInterval(wake, intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

async function keepDays(
  database: Database,
  reads: Kysely<Tables>,
  now: Date,
  stopped: () => boolean,
): Promise<void> {
  const since = day(now.getTime() - keptDays * 86_400_000);
  const until = day(now.getTime() - settlingMs);
  const days = daysFrom(since, until);
  const names = keptNames();
  const dayNames = keptKeys.map((keys) => keys.join(','));
  const kept = await keptAsNow(reads, names, since, until, await changesOf(reads, days));
  const unkept = days.filter((date) => dayNames.some((name) => !kept.has(`${name}|${date}`)));
  const weeks = weeksFrom(since, until).filter((week) =>
    names.some((name) => name.endsWith(' weekly') && !kept.has(`${name}|${week[0]}`)),
  );
  // A write to a day before the database's today is marked by its trigger whatever is kept: only
  // a day at or after it (the database's clock behind the app's) is marked as being counted
  // first. So a first run marks none of its hundreds of empty days twice.
  const databaseDay = await databaseToday(database, reads);
  const unmarked = unkept.filter((date) => date >= databaseDay);
  if (unmarked.length > 0) await markCounting(database, unmarked);
  // A day with nothing stored is kept with no rows, with the others in one transaction.
  const changes = await changesOf(reads, days);
  const empty = await withoutRows(reads, unkept);
  const emptyWeeks = weeks.filter((week) => week.every((date) => empty.has(date)));
  await storeEmpty(database, [...empty], emptyWeeks, changes);
  // Newest first: the days every period asks for.
  for (const date of unkept.filter((one) => !empty.has(one)).reverse()) {
    if (stopped()) return;
    await keepDay(database, reads, date);
  }
  for (const week of weeks.filter((one) => !emptyWeeks.includes(one))) {
    if (stopped()) return;
    await keepWeek(database, reads, week);
  }
  await writeTransaction(database, [], async (trx) => {
    await trx.deleteFrom('count_rollups').where('day', '<', since).execute();
    await trx.deleteFrom('count_rollup_days').where('day', '<', since).execute();
    await trx.deleteFrom('count_day_changes').where('day', '<', since).execute();
  });
}

/**
 * Counts a day once by every key and keeps it by each kept key. A write to it from then on is
 * marked (by its trigger, or as it was marked as being counted first, keepDays); its changes
 * read after that, and the count after them: a write committed meanwhile leaves it kept as
 * older than it is, so it is counted again, never the other way.
 */
async function keepDay(database: Database, reads: Kysely<Tables>, date: string): Promise<void> {
  const names = keptKeys.map((keys) => keys.join(','));
  const changes = (await changesOf(reads, [date]))(date);
  const count = database.countDay ?? ((since, until) => countDay(reads, since, until));
  const kept = await count(date, dayAfter(date));
  for (const [index, name] of names.entries()) {
    await store(database, name, date, changes, [date], kept[index]!);
  }
}

/**
 * Marks the days as being counted, where they have no mark yet: a write to them from then on is
 * marked by its trigger (the migration count-day-triggers), so that none is missed by a count
 * that began before it committed.
 */
async function markCounting(database: Database, days: readonly string[]): Promise<void> {
  const names = keptKeys.map((keys) => keys.join(','));
  await writeTransaction(database, [], async (trx) => {
    for (let start = 0; start < days.length; start += 50) {
      await trx
        .insertInto('count_rollup_days')
        .values(
          days
            .slice(start, start + 50)
            .flatMap((date) => names.map((by) => ({ by, day: date, ...counting }))),
        )
        .onConflict((oc) => oc.columns(['by', 'day']).doNothing())
        .execute();
    }
  });
}

/** Of the days given, those on which no table a count reads has a row. */
async function withoutRows(reads: Kysely<Tables>, days: readonly string[]): Promise<Set<string>> {
  if (days.length === 0) return new Set();
  const range = { since: days[0]!, until: dayAfter(days.at(-1)!) };
  const byDay = (table: 'visits' | 'visit_totals' | 'sign_up_totals') =>
    reads
      .selectFrom(table)
      .select('day')
      .distinct()
      .where('day', '>=', range.since)
      .where('day', '<', range.until)
      .execute();
  // One after the other: on PostgreSQL `reads` is the keeper's one locked connection.
  const registrations = await reads
    .selectFrom('registrations')
    .select(sql<string>`substr(created_at, 1, 10)`.as('day'))
    .distinct()
    .where('created_at', '>=', range.since)
    .where('created_at', '<', range.until)
    .execute();
  const others = [];
  for (const table of ['visits', 'visit_totals', 'sign_up_totals'] as const) {
    others.push(...(await byDay(table)));
  }
  const withRows = new Set([...registrations, ...others].map((row) => row.day));
  return new Set(days.filter((date) => !withRows.has(date)));
}

/** Keeps days and weeks with nothing in them, as of their changes as read, in one transaction. */
async function storeEmpty(
  database: Database,
  days: readonly string[],
  weeks: readonly string[][],
  changes: Changes,
): Promise<void> {
  if (days.length === 0) return;
  await writeTransaction(database, [], async (trx) => {
    const now = await changesOf(trx, [...days].sort());
    const unchanged = (date: string) => now(date) === changes(date);
    const keptDays = days.filter(unchanged);
    const keptWeeks = weeks.filter((week) => week.every(unchanged));
    const weekNames = keptNames().filter((name) => name.endsWith(' weekly'));
    const marks = [
      ...keptDays.flatMap((date) =>
        keptKeys.map((keys) => ({ by: keys.join(','), day: date, changes: changes(date) })),
      ),
      ...keptWeeks.flatMap((week) =>
        weekNames.map((by) => ({ by, day: week[0]!, changes: changes(week) })),
      ),
    ];
    if (marks.length === 0) return;
    // A day's own rows: a week's rows are kept under its Monday, and go with its own mark.
    await trx
      .deleteFrom('count_rollups')
      .where(
        'by',
        'in',
        keptKeys.map((keys) => keys.join(',')),
      )
      .where('day', 'in', keptDays)
      .execute();
    if (keptWeeks.length > 0) {
      await trx
        .deleteFrom('count_rollups')
        .where('by', 'in', weekNames)
        .where(
          'day',
          'in',
          keptWeeks.map((week) => week[0]!),
        )
        .execute();
    }
    // A thousand rows of four parameters a statement: a first run keeps thousands of empty days.
    for (let start = 0; start < marks.length; start += 1000) {
      await trx
        .insertInto('count_rollup_days')
        .values(
          marks.slice(start, start + 1000).map((mark) => ({ ...mark, version: rulesVersion })),
        )
        .onConflict((oc) =>
          oc.columns(['by', 'day']).doUpdateSet((eb) => ({
            version: eb.ref('excluded.version'),
            changes: eb.ref('excluded.changes'),
          })),
        )
        .execute();
    }
  });
}

/** Keeps a week as its seven days kept, added up, if they are all kept as they are now. */
async function keepWeek(database: Database, reads: Kysely<Tables>, week: string[]): Promise<void> {
  const monday = week[0]!;
  const until = dayAfter(week.at(-1)!);
  for (const keys of keptKeys) {
    if ((keys as readonly CountKey[]).includes('day')) continue;
    const name = keys.join(',');
    const changes = await changesOf(reads, week);
    const kept = await keptAsNow(reads, [name, weekly(name)], monday, until, changes);
    if (kept.has(`${weekly(name)}|${monday}`)) continue;
    if (!week.every((date) => kept.has(`${name}|${date}`))) continue;
    const others = countKeys.filter((key) => key !== 'day');
    const summed = await reads
      .selectFrom('count_rollups')
      .select((eb) => [
        ...others,
        ...countColumns.map((column) => eb.fn.sum<number | string>(column).as(column)),
      ])
      .where('by', '=', name)
      .where('day', 'in', week)
      .groupBy(others)
      .execute();
    const rows = summed.map((row) => {
      const kept = { ...row, by: weekly(name), day: monday } as CountRollupsTable;
      for (const column of countColumns) kept[column] = Number(row[column]);
      return kept;
    });
    await store(database, weekly(name), monday, changes(week), week, rows);
  }
}

/**
 * Writes `by`'s rows of a day (or a week, by its Monday) as of `changes`, some hundreds a
 * transaction: the first takes the mark away and the old rows out (a reader counts the day live
 * meanwhile), the last puts the mark back. Each checks under the write lock that the changes
 * are still as counted, and leaves the day for the next run otherwise.
 */
async function store(
  database: Database,
  by: string,
  date: string,
  changes: number,
  days: readonly string[],
  rows: CountRollupsTable[],
): Promise<void> {
  const unchanged = async (trx: Kysely<Tables>) => (await changesOf(trx, days))(days) === changes;
  for (let start = 0; start === 0 || start < rows.length; start += rowsPerTransaction) {
    const last = start + rowsPerTransaction >= rows.length;
    // The writes that wait for the connection (SQLite's only one) go first: woken together with
    // this loop, they would otherwise find it taken again every time.
    await turn();
    const done = await writeTransaction(database, [], async (trx) => {
      if (!(await unchanged(trx))) return true;
      if (start === 0) {
        await trx
          .updateTable('count_rollup_days')
          .set(counting)
          .where('by', '=', by)
          .where('day', '=', date)
          .execute();
        await trx
          .deleteFrom('count_rollups')
          .where('by', '=', by)
          .where('day', '=', date)
          .execute();
      }
      const chunk = rows.slice(start, start + rowsPerTransaction);
      if (chunk.length > 0) await trx.insertInto('count_rollups').values(chunk).execute();
      if (last) {
        await trx
          .insertInto('count_rollup_days')
          .values({ by, day: date, version: rulesVersion, changes })
          .onConflict((oc) =>
            oc.columns(['by', 'day']).doUpdateSet({ version: rulesVersion, changes }),
          )
          .execute();
      }
      return last;
    });
    if (done) return;
  }
}
