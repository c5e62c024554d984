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

/** A team on the programme's page: its members' numbers added up. */
export interface ProgramTeam extends ProgramNumbers {
  team_leader_id: string;
  /** The leader's name in the directory; null when it does not know them. */
  name: string | null;
  /** The members' marketing ids, as ranked in `marketers` (the leader's own row is not one). */
  members: string[];
}

export interface ProgramStats {
  days: StatsPeriod;
  /** The period's first and last UTC day (YYYY-MM-DD). */
  from: string;
  to: string;
  totals: ProgramNumbers & { contacted: number; qualified: number; lost: number };
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
