import type {
  LinkNumbers,
  MarketerStats,
  StatsPeriod,
  TeamMember,
} from '../../domain/marketer-stats';
import type { SignUpCount } from '../registrations/sign-up-counts';
import type { DayVisits, MarketerVisits } from '../visits/visit-repository';

/** The first UTC day (YYYY-MM-DD) of a period that ends today. */
export function firstDay(days: StatsPeriod, now: Date): string {
  return new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

const noNumbers = (): LinkNumbers => ({ visits: 0, unique_visitors: 0, sign_ups: 0, clients: 0 });

/** A part per hundred of a whole, one decimal; null when the whole is none. */
const percent = (part: number, whole: number) =>
  whole === 0 ? null : Math.round((part / whole) * 1000) / 10;

function add(sum: LinkNumbers, row: LinkNumbers): LinkNumbers {
  return {
    visits: sum.visits + row.visits,
    unique_visitors: sum.unique_visitors + row.unique_visitors,
    sign_ups: sum.sign_ups + row.sign_ups,
    clients: sum.clients + row.clients,
  };
}

/**
 * One marketer's numbers from their visits and leads per day and package (the leads counted by
 * countSignUps, as the report counts them): unique visitors added up over days, conversion as
 * sign-ups per hundred unique visitors and the client rate as clients per hundred sign-ups (one
 * decimal; null for none). Every day of the period is listed, zeros included, oldest first, so
 * a chart needs no gaps filled.
 */
export function buildMarketerStats(
  marketingId: string,
  days: StatsPeriod,
  now: Date,
  visits: DayVisits[],
  leads: SignUpCount<'day' | 'package_key'>[],
): MarketerStats {
  const byDay = new Map<string, MarketerStats['by_day'][number]>();
  for (let day = 0; day < days; day++) {
    const date = firstDay((days - day) as StatsPeriod, now);
    byDay.set(date, { date, visits: 0, sign_ups: 0, clients: 0 });
  }
  const byPackage = new Map<string | null, LinkNumbers & { package_key: string | null }>();
  const link = (packageKey: string | null) => {
    let found = byPackage.get(packageKey);
    if (found === undefined) {
      found = { package_key: packageKey, ...noNumbers() };
      byPackage.set(packageKey, found);
    }
    return found;
  };
  for (const row of visits) {
    const found = link(row.packageKey);
    found.visits += row.visits;
    found.unique_visitors += row.visitors;
    const day = byDay.get(row.day);
    if (day !== undefined) day.visits += row.visits;
  }
  for (const row of leads) {
    const found = link(row.package_key);
    found.sign_ups += row.leads;
    found.clients += row.clients;
    const day = byDay.get(row.day ?? '');
    if (day !== undefined) {
      day.sign_ups += row.leads;
      day.clients += row.clients;
    }
  }
  const by_package = [...byPackage.values()].sort((a, b) =>
    (a.package_key ?? '') < (b.package_key ?? '') ? -1 : 1,
  );
  const totals = by_package.reduce(add, noNumbers());
  return {
    marketing_id: marketingId,
    days,
    totals: {
      ...totals,
      conversion_percent: percent(totals.sign_ups, totals.unique_visitors),
      client_percent: percent(totals.clients, totals.sign_ups),
    },
    by_package,
    by_day: [...byDay.values()],
  };
}

/**
 * A team leader's team: each member their token lists, in its order, also one with no numbers
 * yet, and the members added up.
 */
export function buildTeam(
  members: string[],
  visits: MarketerVisits[],
  leads: SignUpCount<'marketing_id'>[],
): Required<Pick<MarketerStats, 'team' | 'team_totals'>> {
  const team = new Map(members.map((id) => [id, { marketing_id: id, ...noNumbers() }]));
  for (const row of visits) {
    const member = team.get(row.marketingId);
    if (member === undefined) continue;
    member.visits += row.visits;
    member.unique_visitors += row.visitors;
  }
  for (const row of leads) {
    const member = team.get(row.marketing_id ?? '');
    if (member === undefined) continue;
    member.sign_ups += row.leads;
    member.clients += row.clients;
  }
  const listed: TeamMember[] = [...team.values()];
  return { team: listed, team_totals: listed.reduce(add, noNumbers()) };
}
