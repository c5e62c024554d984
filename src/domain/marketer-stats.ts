/**
 * The marketers' numbers (docs/marketer-kit.md): GET /api/marketer/stats's answer, which the
 * server builds and the link page shows.
 */

/** The page's <meta name> that holds the localStorage key of the platform's token: the feature is on. */
export const marketerStatsMeta = 'marketer-stats';

export const marketerStatsPath = '/api/marketer/stats';

/** The periods a marketer may ask for: today, and the last 7, 30 and 90 days (today included). */
export const statsPeriods = [1, 7, 30, 90] as const;
export type StatsPeriod = (typeof statsPeriods)[number];

export interface LinkNumbers {
  visits: number;
  unique_visitors: number;
  sign_ups: number;
}

export interface MarketerStats {
  marketing_id: string;
  days: StatsPeriod;
  /** conversion_percent: sign-ups per hundred unique visitors, one decimal; null without visitors. */
  totals: LinkNumbers & { conversion_percent: number | null };
  /** null: the free trial. */
  by_package: (LinkNumbers & { package_key: string | null })[];
  /** Every day of the period, oldest first (YYYY-MM-DD, UTC). */
  by_day: { date: string; visits: number; sign_ups: number }[];
}
