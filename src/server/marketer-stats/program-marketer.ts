import { marketerLeadsShown, type ProgramMarketerStats } from '../../domain/program-marketer';
import { addDays, daysOf } from '../../domain/program-stats';
import type { CountPeriods } from '../count-rollups';
import { countAll } from '../counts';
import { marketerLeads } from '../leads/lead-reviews';
import { directoryOf } from '../people/people';
import { campaignRows, everyDay, packageRows, teamOf, totalsOf } from './program-stats';

/**
 * One marketer's numbers over a period of days (`from` to `to`, UTC, both included), for their
 * page on the programme (docs/program.md), in the one read transaction of the programme's: the
 * totals, the previous period's and each day from the marketers' kept days (their row on the
 * programme's page, the same count), their packages and campaigns counted live through their
 * links' index (the kept days hold those of all marketers together, not a marketer's), and
 * their leads awaiting review and not credited, as the review list shows a lead.
 */
export async function buildProgramMarketer(
  periods: CountPeriods,
  marketingId: string,
  { from, to }: { from: string; to: string },
  now: Date,
): Promise<ProgramMarketerStats> {
  const days = daysOf(from, to);
  const until = addDays(to, 1);
  const previous = { from: addDays(from, -days), to: addDays(from, -1) };
  const one = { since: from, until, marketingIds: [marketingId] };
  const [byDay, before, packages, campaigns, leads, directory] = await periods.read(
    async (count, reads) => {
      const read = [
        await count(['day', 'marketing_id'], from, now, until, marketingId),
        await count(['marketing_id'], previous.from, now, from, marketingId),
        await countAll(reads, ['package_key'], one),
        await countAll(reads, ['utm_source', 'utm_campaign'], one),
        await marketerLeads(reads, marketingId, { since: from, until }, marketerLeadsShown),
      ] as const;
      const directory = await directoryOf(reads, [marketingId]);
      const leader = teamOf(marketingId, directory);
      const leaders = leader === null ? new Map() : await directoryOf(reads, [leader]);
      return [...read, new Map([...directory, ...leaders])] as const;
    },
  );
  const totals = totalsOf(byDay);
  const leader = teamOf(marketingId, directory);
  return {
    days,
    from,
    to,
    marketing_id: marketingId,
    known: directory.has(marketingId),
    name: directory.get(marketingId)?.name ?? null,
    team_leader:
      leader === null ? null : { marketing_id: leader, name: directory.get(leader)?.name ?? null },
    totals,
    previous: { ...previous, totals: totalsOf(before) },
    by_day: everyDay(from, days, byDay),
    outcomes: {
      new: totals.leads - totals.contacted - totals.qualified - totals.clients - totals.lost,
      contacted: totals.contacted,
      qualified: totals.qualified,
      client: totals.clients,
      lost: totals.lost,
    },
    packages: packageRows(packages),
    campaigns: campaignRows(campaigns),
    ...leads,
  };
}
