import { percent } from '../../domain/conversion';
import type { StatsPeriod } from '../../domain/marketer-stats';
import type { ProgramNumbers, ProgramStats } from '../../domain/program-stats';
import { otherCampaign } from '../campaigns';
import type { CountPeriods } from '../count-rollups';
import { compareIds, countColumns, type Count, type Counts } from '../counts';
import { firstDay } from './marketer-stats';

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

/**
 * The whole programme's numbers over a period that ends today, each table from the one count
 * (countAll, its finished days as kept: CountPeriods), as `npm run report -- --since` counts them: the totals, every day (zeros
 * included, oldest first), the marketers with leads (the general links as one of them), the
 * campaigns and the packages.
 */
export async function buildProgramStats(
  periods: CountPeriods,
  days: StatsPeriod,
  now: Date,
): Promise<ProgramStats> {
  const since = firstDay(days, now);
  // One after the other on one connection: one answer takes one of the counts' connections.
  const [byDay, marketers, campaigns, packages] = await periods.read(async (count) => [
    await count(['day'], since, now),
    await count(['marketing_id'], since, now),
    await count(['utm_source', 'utm_campaign'], since, now),
    await count(['package_key'], since, now),
  ]);
  const totals = Object.fromEntries(countColumns.map((column) => [column, 0])) as Counts;
  for (const row of byDay) for (const column of countColumns) totals[column] += row[column];
  const counted = new Map(byDay.map((row) => [row.day, row]));
  const to = now.toISOString().slice(0, 10);
  return {
    days,
    from: since,
    to,
    totals: {
      ...numbers(totals),
      contacted: totals.contacted,
      qualified: totals.qualified,
      lost: totals.lost,
    },
    by_day: Array.from({ length: days }, (_, day) => {
      const date = firstDay((days - day) as StatsPeriod, now);
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
