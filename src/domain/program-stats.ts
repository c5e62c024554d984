/**
 * The referral programme's numbers (docs/program.md): GET /api/program/stats's answer, which the
 * server builds from the one count and the provider's page shows. No prospect is in it: marketer
 * ids with their names and teams from the directory, packages and campaigns only.
 */
import type { StatsPeriod } from './marketer-stats';

export const programStatsPath = '/api/program/stats';

/** A group's numbers over the period (leads and clients: by the day each lead signed up). */
export interface ProgramNumbers {
  visits: number;
  unique_visitors: number;
  leads: number;
  clients: number;
  /** Leads per hundred unique visitors, one decimal; null without visitors. */
  conversion_percent: number | null;
  /** Clients per hundred leads, one decimal; null without leads. */
  client_percent: number | null;
  /** The leads with a flag (docs/flags.md), decided or not. */
  flagged: number;
  /** The leads decided "not credited": in no other number (leads and clients included). */
  not_credited: number;
}

/** The period's totals: a group's numbers, and the leads' outcomes. */
export type ProgramTotals = ProgramNumbers & { contacted: number; qualified: number; lost: number };

/** A team on the programme's page: its members' numbers added up. */
export interface ProgramTeam extends ProgramNumbers {
  team_leader_id: string;
  /** The leader's name in the directory; null when it does not know them. */
  name: string | null;
  /** The members' marketing ids, as ranked in `marketers` (the leader's own row is not one). */
  members: string[];
}

export interface ProgramStats {
  /** How many days the period has: the one asked for (1, 7, 30 or 90), or the range's. */
  days: number;
  /** The period's first and last UTC day (YYYY-MM-DD). */
  from: string;
  to: string;
  totals: ProgramTotals;
  /** The same number of days right before the period, and its totals, to compare with. */
  previous: { from: string; to: string; totals: ProgramTotals };
  /** Every day of the period, oldest first, zeros included. */
  by_day: { date: string; visits: number; leads: number; clients: number }[];
  /**
   * Each marketer with leads in the period (or leads not credited), most leads first; null: the
   * general links.
   */
  marketers: (ProgramNumbers & {
    marketing_id: string | null;
    /** The directory's name; null when it does not know the id (and for the general links). */
    name: string | null;
    /** The directory's team leader: their team (docs/program.md); null for none. */
    team_leader_id: string | null;
  })[];
  /**
   * Each team leader with members among `marketers`, most leads first: the members' rows added
   * up. The general links and the marketers with no team are in none.
   */
  teams: ProgramTeam[];
  /**
   * Each campaign with visits or leads, null for none; `other`: the campaigns past a link's
   * limit of a day, together (the report's "(other)"), whose two fields are then null.
   */
  campaigns: (ProgramNumbers & {
    utm_source: string | null;
    utm_campaign: string | null;
    other: boolean;
  })[];
  /** Each package with visits or leads; null: the free trial. */
  packages: (ProgramNumbers & { package_key: string | null })[];
}

/**
 * The period the page asks for: the last `days` (today included), or a range of UTC days, both
 * ends included (`?from=YYYY-MM-DD&to=YYYY-MM-DD`), kept in the page's address.
 */
export type ProgramPeriod = { days: StatsPeriod } | { from: string; to: string };

/** The longest range, in days: a year, a leap one included. */
export const longestRange = 366;

const dayMs = 86_400_000;

/** A UTC day (YYYY-MM-DD) as a time; NaN when it is no day of the calendar (2026-02-30). */
function timeOf(date: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return NaN;
  const time = Date.parse(`${date}T00:00:00Z`);
  return new Date(time).toISOString().slice(0, 10) === date ? time : NaN;
}

/** The UTC day `days` after `date` (before it, when negative). */
export function addDays(date: string, days: number): string {
  return new Date(timeOf(date) + days * dayMs).toISOString().slice(0, 10);
}

/** How many days from `from` to `to`, both included. */
export const daysOf = (from: string, to: string) =>
  Math.round((timeOf(to) - timeOf(from)) / dayMs) + 1;

/** Why a range cannot be shown, each with its text in arProgram.errorRange; none when it can. */
export type RangeRefusal = 'dates' | 'order' | 'length' | 'future';

/**
 * The one rule of a range, for the page before it asks and for the API: two days of the
 * calendar, the first not after the last, at most longestRange days, and none after `today`.
 */
export function rangeRefusal(from: string, to: string, today: string): RangeRefusal | undefined {
  if (Number.isNaN(timeOf(from)) || Number.isNaN(timeOf(to))) return 'dates';
  if (from > to) return 'order';
  if (daysOf(from, to) > longestRange) return 'length';
  if (to > today) return 'future';
  return undefined;
}

/** The first and last day of a period, as the API counts it, `today` its last for `days`. */
export function periodDays(period: ProgramPeriod, today: string): { from: string; to: string } {
  return 'days' in period ? { from: addDays(today, 1 - period.days), to: today } : period;
}

/** The period's query string, as the API and the page's address take it. */
export function periodQuery(period: ProgramPeriod): string {
  return 'days' in period ? `?days=${period.days}` : `?from=${period.from}&to=${period.to}`;
}
