import { percent } from '../../domain/conversion';
import {
  addDays,
  daysOf,
  type ProgramNumbers,
  type ProgramStats,
  type ProgramTeam,
  type ProgramTotals,
} from '../../domain/program-stats';
import { otherCampaign } from '../campaigns';
import type { CountPeriods } from '../count-rollups';
import { compareIds, countColumns, type Count, type Counts } from '../counts';
import { directoryOf, type Listed } from '../people/people';

export const numbers = (row: Counts): ProgramNumbers => ({
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

/** A marketer listed: with leads, or whose every lead was not credited (kept in view with it). */
const listed = (row: Counts) => row.leads > 0 || row.not_credited > 0;

/** Rows' numbers added up. */
function sumOf(rows: readonly Counts[]): Counts {
  const sum = Object.fromEntries(countColumns.map((column) => [column, 0])) as Counts;
  for (const row of rows) for (const column of countColumns) sum[column] += row[column];
  return sum;
}

/** A period's totals: its rows (by any one key) added up, with the leads' outcomes. */
export function totalsOf(rows: readonly Counts[]): ProgramTotals {
  const totals = sumOf(rows);
  return {
    ...numbers(totals),
    contacted: totals.contacted,
    qualified: totals.qualified,
    lost: totals.lost,
  };
}

/** A marketer's team, as the directory has it: none for a leader of their own (or unknown). */
export function teamOf(id: string | null, directory: Map<string, Listed>): string | null {
  const leader = id === null ? null : (directory.get(id)?.team_leader_id ?? null);
  return leader === id ? null : leader;
}

/**
 * The teams of the ranked marketers (which team counts: the directory's team leader,
 * docs/program.md), each its members' rows added up, its members in the marketers' order.
 */
function teamsOf(
  marketers: readonly Count<'marketing_id'>[],
  directory: Map<string, Listed>,
): ProgramTeam[] {
  const teams = new Map<string, Count<'marketing_id'>[]>();
  for (const row of marketers) {
    const leader = teamOf(row.marketing_id, directory);
    if (leader !== null) teams.set(leader, [...(teams.get(leader) ?? []), row]);
  }
  const summed = [...teams].map(([leader, rows]) => ({ leader, rows, ...sumOf(rows) }));
  return ranked(summed, (team) => team.leader).map(({ leader, rows, ...sum }) => ({
    team_leader_id: leader,
    name: directory.get(leader)?.name ?? null,
    ...numbers(sum),
    members: rows.map((row) => row.marketing_id!),
  }));
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
  const [byDay, byMarketer, campaigns, packages, before, directory] = await periods.read(
    async (count, reads) => {
      const counts = [
        await count(['day'], from, now, until),
        await count(['marketing_id'], from, now, until),
        await count(['utm_source', 'utm_campaign'], from, now, until),
        await count(['package_key'], from, now, until),
        await count(['package_key'], previous.from, now, from),
      ] as const;
      // The names and teams as they are when the numbers are counted, then the leaders' names.
      const ids = counts[1].filter(listed).flatMap((row) => row.marketing_id ?? []);
      const directory = await directoryOf(reads, ids);
      const leaders = ids.flatMap((id) => teamOf(id, directory) ?? []);
      const more = await directoryOf(
        reads,
        leaders.filter((id) => !directory.has(id)),
      );
      return [...counts, new Map([...directory, ...more])] as const;
    },
  );
  const marketers = ranked(byMarketer.filter(listed), (row) => row.marketing_id);
  return {
    days,
    from,
    to,
    totals: totalsOf(byDay),
    previous: { ...previous, totals: totalsOf(before) },
    by_day: everyDay(from, days, byDay),
    marketers: marketers.map((row) => ({
      marketing_id: row.marketing_id,
      name: row.marketing_id === null ? null : (directory.get(row.marketing_id)?.name ?? null),
      team_leader_id: teamOf(row.marketing_id, directory),
      ...numbers(row),
    })),
    teams: teamsOf(marketers, directory),
    campaigns: campaignRows(campaigns),
    packages: packageRows(packages),
  };
}

/** Every day of a period from its count by day, oldest first, zeros included. */
export function everyDay(
  from: string,
  days: number,
  byDay: readonly Count<'day'>[],
): ProgramStats['by_day'] {
  const counted = new Map(byDay.map((row) => [row.day, row]));
  return Array.from({ length: days }, (_, day) => {
    const date = addDays(from, day);
    const row = counted.get(date);
    return { date, visits: row?.visits ?? 0, leads: row?.leads ?? 0, clients: row?.clients ?? 0 };
  });
}

/** The campaigns ranked, those past a link's limit as one. */
export function campaignRows(
  campaigns: Count<'utm_source' | 'utm_campaign'>[],
): ProgramStats['campaigns'] {
  return ranked(campaigns, (row) => JSON.stringify([row.utm_source, row.utm_campaign])).map(
    (row) => {
      const other = row.utm_source === otherCampaign;
      return {
        utm_source: other ? null : row.utm_source,
        utm_campaign: other ? null : row.utm_campaign,
        other,
        ...numbers(row),
      };
    },
  );
}

/** The packages ranked, null the free trial. */
export function packageRows(packages: Count<'package_key'>[]): ProgramStats['packages'] {
  return ranked(packages, (row) => row.package_key).map((row) => ({
    package_key: row.package_key,
    ...numbers(row),
  }));
}
