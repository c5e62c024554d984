import type {
  LinkNumbers,
  MarketerStats,
  StatsPeriod,
  TeamMember,
} from '../../domain/marketer-stats';
import { percent } from '../../domain/conversion';
import type { Count, Counts } from '../counts';
import type { Listed } from '../people/people';

/** The first UTC day (YYYY-MM-DD) of a period that ends today. */
export function firstDay(days: StatsPeriod, now: Date): string {
  return new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

/** A group's numbers as the marketers' answer names them (sign_ups: leads, under its first name). */
const numbers = (counts?: Counts): LinkNumbers => ({
  visits: counts?.visits ?? 0,
  unique_visitors: counts?.unique_visitors ?? 0,
  leads: counts?.leads ?? 0,
  sign_ups: counts?.leads ?? 0,
  clients: counts?.clients ?? 0,
});

function add(sum: LinkNumbers, row: LinkNumbers): LinkNumbers {
  const leads = sum.leads + row.leads;
  return {
    visits: sum.visits + row.visits,
    unique_visitors: sum.unique_visitors + row.unique_visitors,
    leads,
    sign_ups: leads,
    clients: sum.clients + row.clients,
  };
}

/**
 * One marketer's numbers from the count of their links per day and package (countAll, as the
 * report counts them): unique visitors added up over days, conversion as leads per hundred
 * unique visitors and the client rate as clients per hundred leads. Every day of the period is
 * listed, zeros included, oldest first, so a chart needs no gaps filled.
 */
export function buildMarketerStats(
  marketingId: string,
  days: StatsPeriod,
  now: Date,
  counted: Count<'day' | 'package_key'>[],
): MarketerStats {
  const byDay = new Map<string, MarketerStats['by_day'][number]>();
  for (let day = 0; day < days; day++) {
    const date = firstDay((days - day) as StatsPeriod, now);
    byDay.set(date, { date, visits: 0, leads: 0, sign_ups: 0, clients: 0 });
  }
  const byPackage = new Map<string | null, LinkNumbers & { package_key: string | null }>();
  for (const row of counted) {
    const link = byPackage.get(row.package_key) ?? { package_key: row.package_key, ...numbers() };
    byPackage.set(row.package_key, { ...link, ...add(link, numbers(row)) });
    const day = byDay.get(row.day ?? '');
    if (day !== undefined) {
      day.visits += row.visits;
      day.leads += row.leads;
      day.sign_ups = day.leads;
      day.clients += row.clients;
    }
  }
  const by_package = [...byPackage.values()].sort((a, b) =>
    (a.package_key ?? '') < (b.package_key ?? '') ? -1 : 1,
  );
  const totals = by_package.reduce(add, numbers());
  // How many, never which: the marketer is not told whose lead awaits a decision.
  const sum = (column: 'awaiting_review' | 'not_credited') =>
    counted.reduce((total, row) => total + row[column], 0);
  return {
    marketing_id: marketingId,
    days,
    totals: {
      ...totals,
      conversion_percent: percent(totals.leads, totals.unique_visitors),
      client_percent: percent(totals.clients, totals.leads),
      awaiting_review: sum('awaiting_review'),
      not_credited: sum('not_credited'),
    },
    by_package,
    by_day: [...byDay.values()],
  };
}

/**
 * A team leader's team: each member their token lists, in its order (or the directory's, by id),
 * also one with no numbers yet, with their name in the directory, and the members added up.
 */
export function buildTeam(
  members: string[],
  counted: Count<'marketing_id'>[],
  directory: Map<string, Listed>,
): Required<Pick<MarketerStats, 'team' | 'team_totals'>> {
  const byMember = new Map(counted.map((row) => [row.marketing_id, row]));
  const team: TeamMember[] = members.map((id) => ({
    marketing_id: id,
    name: directory.get(id)?.name ?? null,
    ...numbers(byMember.get(id)),
  }));
  return { team, team_totals: team.reduce<LinkNumbers>(add, numbers()) };
}
