/**
 * One marketer's numbers for the programme's managers (docs/program.md): the answer of
 * GET /api/program/marketers/{marketing_id}/stats, which their page shows. No prospect is in it:
 * the marketer, their team, packages, campaigns, and of each lead listed the phone's last three
 * digits alone, as on the review list.
 */
import type { LeadStatus } from './lead-status';
import type { ReviewLead } from './lead-review';
import type { ProgramStats } from './program-stats';

/** The API's path of one marketer's numbers. */
export const programMarketerStatsPath = (marketingId: string) =>
  `/api/program/marketers/${encodeURIComponent(marketingId)}/stats`;

/** The leads a list of the page holds at most: the review list's page. */
export const marketerLeadsShown = 100;

/** Some of a marketer's leads: how many there are, and the first of them. */
export interface MarketerLeads {
  count: number;
  leads: ReviewLead[];
}

export interface ProgramMarketerStats extends Pick<
  ProgramStats,
  'days' | 'from' | 'to' | 'totals' | 'previous' | 'by_day'
> {
  marketing_id: string;
  /** Whether the directory has this id: a marketer it does not know is shown by their id. */
  known: boolean;
  /** The directory's name; null when it does not know them (or their name was erased). */
  name: string | null;
  /** Their team, as on the programme's page: the directory's team leader, null for none. */
  team_leader: { marketing_id: string; name: string | null } | null;
  /** The period's leads by what became of them (the leads not credited in none). */
  outcomes: Record<LeadStatus, number>;
  packages: ProgramStats['packages'];
  campaigns: ProgramStats['campaigns'];
  /** Their flagged leads with no decision yet, whatever the period, the oldest first. */
  awaiting_review: MarketerLeads;
  /** The period's leads whose latest decision is "not credited", the latest lead first. */
  not_credited: MarketerLeads;
}
