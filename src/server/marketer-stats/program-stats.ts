import { percent } from '../../domain/conversion';
import {
  addDays,
  daysOf,
  type ProgramNumbers,
  type ProgramStats,
  type ProgramTotals,
} from '../../domain/program-stats';
import { otherCampaign } from '../campaigns';
import type { CountPeriods } from '../count-rollups';
import { compareIds, countColumns, type Count, type Counts } from '../counts';

const numbers = (row: Counts): ProgramNumbers => ({
  visits: row.visits,
  unique_visitors: row.unique_visitors,
  leads: row.leads,
  clients: row.clients,
  conversion_percent: percent(row.leads, row.unique_visitors),
  client_percent: percent(row.clients, row.leads),
  flagged: row.flagged,
  not_credited: row.not_credited,
});

/** Most leads first, then most clients, then most visits, then by name (none last). */
function ranked<Row extends Counts>(rows: Row[], name: (row: Row) => string | null): Row[] {
  const byName = (a: string | null, b: string | null) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : compareIds(a, b);
  return rows.sort(
    (a, b) =>
      b.leads - a.leads || b.clients - a.clients || b.visits - a.visits || byName(name(a), name(b)),
  );
}

/** The totals of a period: its rows (by any one key) added up, with the leads' outcomes. */
function totalsOf(rows: Counts[]): ProgramTotals {
  const totals = Object.fromEntries(countColumns.map((column) => [column, 0])) as Counts;
  for (const row of rows) for (const column of countColumns) totals[column] += row[column];
  return {
    ...numbers(totals),
    contacted: totals.contacted,
    qualified: totals.qualified,
    lost: totals.lost,
  };
}

/**
 * The whole programme's numbers over a period of days (`from` to `to`, UTC, both included),
 * each table from the one count (countAll, its finished days as kept: CountPeriods), as
 * `npm run report -- --since` counts them: the totals, and those of the same number of days
 * right before, every day (zeros included, oldest first), the marketers with leads (the general
 * links as one of them), the campaigns and the packages.
 */
export async function buildProgramStats(
  periods: CountPeriods,
  { from, to }: { from: string; to: string },
  now: Date,
): Promise<ProgramStats> {
  const days = daysOf(from, to);
  const until = addDays(to, 1);
  const previous = { from: addDays(from, -days), to: addDays(from, -1) };
  // One after the other on one connection: one answer takes one of the counts' connections,
  // and the two periods agree with each other. The previous period needs its totals alone: by
  // package, the key whose finished weeks are a few rows each.
  const [byDay, marketers, campaigns, packages, before] = await periods.read(async (count) => [
    await count(['day'], from, now, until),
    await count(['marketing_id'], from, now, until),
    await count(['utm_source', 'utm_campaign'], from, now, until),
    await count(['package_key'], from, now, until),
    await count(['package_key'], previous.from, now, from),
  ]);
  const counted = new Map(byDay.map((row) => [row.day, row]));
  return {
    days,
    from,
    to,
    totals: totalsOf(byDay),
    previous: { ...previous, totals: totalsOf(before) },
    by_day: Array.from({ length: days }, (_, day) => {
      const date = addDays(from, day);
      const row = counted.get(date);
      return {
        date,
        visits: row?.visits ?? 0,
        leads: row?.leads ?? 0,
        clients: row?.clients ?? 0,
      };
    }),
    marketers: ranked(
      // A marketer whose every lead was not credited stays in view, with that number.
      marketers.filter((row) => row.leads > 0 || row.not_credited > 0),
      (row) => row.marketing_id,
    ).map((row) => ({ marketing_id: row.marketing_id, ...numbers(row) })),
    campaigns: ranked(campaigns, (row) => JSON.stringify([row.utm_source, row.utm_campaign])).map(
      (row: Count<'utm_source' | 'utm_campaign'>) => {
        const other = row.utm_source === otherCampaign;
        return {
          utm_source: other ? null : row.utm_source,
          utm_campaign: other ? null : row.utm_campaign,
          other,
          ...numbers(row),
        };
      },
    ),
    packages: ranked(packages, (row) => row.package_key).map((row) => ({
      package_key: row.package_key,
      ...numbers(row),
    })),
  };
}
