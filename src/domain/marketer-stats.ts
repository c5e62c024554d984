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

/**
 * A period's numbers. leads: first sign-ups (a repeat is not one); sign_ups: the same number,
 * the field's first name, kept for the tools that read it. clients: the leads of the period (by
 * the day each signed up) whose status in the provider's CRM is `client` now.
 */
export interface LinkNumbers {
  visits: number;
  unique_visitors: number;
  leads: number;
  sign_ups: number;
  clients: number;
}

/** One member of a team leader's team, and their numbers over the period. */
export interface TeamMember extends LinkNumbers {
  marketing_id: string;
  /** Their name in the programme's directory; null when it does not know them. */
  name: string | null;
}

export interface MarketerStats {
  marketing_id: string;
  days: StatsPeriod;
  /**
   * conversion_percent: leads per hundred unique visitors, one decimal; null without visitors.
   * client_percent: clients per hundred leads, one decimal; null without leads.
   */
  totals: LinkNumbers & {
    conversion_percent: number | null;
    client_percent: number | null;
    /** Of the period's leads, those flagged and not yet decided (docs/flags.md): still leads. */
    awaiting_review: number;
    /** The period's leads decided "not credited": in no other number. */
    not_credited: number;
  };
  /** null: the free trial. */
  by_package: (LinkNumbers & { package_key: string | null })[];
  /** Every day of the period, oldest first (YYYY-MM-DD, UTC). */
  by_day: { date: string; visits: number; leads: number; sign_ups: number; clients: number }[];
  /**
   * A team leader's only: each member their token lists, in its order, or else the directory's
   * (the leader's own numbers are the ones above), and the members' numbers added up.
   */
  team?: TeamMember[];
  team_totals?: LinkNumbers;
}
