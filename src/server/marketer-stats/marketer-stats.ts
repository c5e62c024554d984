import type { LinkNumbers, MarketerStats, StatsPeriod } from '../../domain/marketer-stats';
import type { SignUpCount } from '../registrations/sign-up-counts';
import type { DayVisits } from '../visits/visit-repository';

/** The first UTC day (YYYY-MM-DD) of a period that ends today. */
export function firstDay(days: StatsPeriod, now: Date): string {
  return new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

/**
 * One marketer's numbers from their visits and leads per day and package (the leads counted by
 * countSignUps, as the report counts them): unique visitors added up over days, conversion as sign-ups per hundred unique visitors
 * (one decimal; null when nobody visited). Every day of the period is listed, zeros included,
 * oldest first, so a chart needs no gaps filled.
 */
export function buildMarketerStats(
  marketingId: string,
  days: StatsPeriod,
  now: Date,
  visits: DayVisits[],
  leads: SignUpCount<'day' | 'package_key'>[],
): MarketerStats {
  const byDay = new Map<string, { date: string; visits: number; sign_ups: number }>();
  for (let day = 0; day < days; day++) {
    const date = firstDay((days - day) as StatsPeriod, now);
    byDay.set(date, { date, visits: 0, sign_ups: 0 });
  }
  const byPackage = new Map<string | null, LinkNumbers & { package_key: string | null }>();
  const link = (packageKey: string | null) => {
    let found = byPackage.get(packageKey);
    if (found === undefined) {
      found = { package_key: packageKey, visits: 0, unique_visitors: 0, sign_ups: 0 };
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
    link(row.package_key).sign_ups += row.leads;
    const day = byDay.get(row.day ?? '');
    if (day !== undefined) day.sign_ups += row.leads;
  }
  const by_package = [...byPackage.values()].sort((a, b) =>
    (a.package_key ?? '') < (b.package_key ?? '') ? -1 : 1,
  );
  const totals = by_package.reduce(
    (sum, row) => ({
      visits: sum.visits + row.visits,
      unique_visitors: sum.unique_visitors + row.unique_visitors,
      sign_ups: sum.sign_ups + row.sign_ups,
    }),
    { visits: 0, unique_visitors: 0, sign_ups: 0 },
  );
  return {
    marketing_id: marketingId,
    days,
    totals: {
      ...totals,
      conversion_percent:
        totals.unique_visitors === 0
          ? null
          : Math.round((totals.sign_ups / totals.unique_visitors) * 1000) / 10,
    },
    by_package,
    by_day: [...byDay.values()],
  };
}
