/**
 * Flags on doubtful leads and the decisions on their credit (docs/flags.md): the names of the
 * flags, the programme's review list (GET /api/program/review) and a decision
 * (POST /api/program/leads/{id}/review, or on many leads, POST /api/program/review), as the
 * server answers them and the provider's page shows them. No prospect is in them: the phone's
 * last three digits only (the marketers' names are).
 */

/** Why a lead's credit is doubtful, in the order they are listed. */
export const leadFlags = [
  'contested',
  'burst',
  'fast',
  'reused_form',
  'disposable_email',
  'same_address',
] as const;
export type LeadFlag = (typeof leadFlags)[number];

export const reviewListPath = '/api/program/review';

/** The review list's query: a page after a lead, a marketer's, a flag's. */
export interface ReviewListQuery {
  after?: string;
  marketing_id?: string;
  flag?: LeadFlag;
}

/** A decision on many leads at once (POST reviewListPath): the decisions as recorded. */
export interface ReviewsRecorded {
  reviews: LeadReview[];
}

/** The path of a decision on a lead (or on a repeat's lead). */
export const leadReviewPath = (id: string) => `/api/program/leads/${encodeURIComponent(id)}/review`;

/** A decision's note: short, one line of the reviewer's. */
export const reviewNoteLength = 280;

/** The leads one request may decide at once (POST reviewListPath): a page of the review list. */
export const reviewPageLength = 100;

/**
 * One of a lead's flags; `other`: for `contested`, the earlier lead's marketer (null: a general
 * link) and their name in the directory, null once that lead is deleted.
 */
export interface ReviewFlag {
  flag: LeadFlag;
  other: { marketing_id: string | null; name: string | null } | null;
}

/** A flagged lead with no decision yet. */
export interface ReviewLead {
  id: string;
  created_at: string;
  marketing_id: string | null;
  /** The marketer's name in the directory; null when it does not know them. */
  name: string | null;
  package_key: string | null;
  /** The phone's last three digits: enough to tell two leads apart, not to call anyone. */
  phone_end: string;
  flags: ReviewFlag[];
}

/** A decision as recorded: the lead's id (a repeat's decision is its lead's). */
export interface LeadReview {
  id: string;
  credited: boolean;
  reviewed_by: string;
  reviewed_at: string;
  note: string;
}

/** A decided lead: its flags (none when it was decided without one) and every decision on it. */
export interface DecidedLead extends ReviewLead {
  /** The latest first: the one that counts. */
  reviews: Omit<LeadReview, 'id'>[];
}

export interface ReviewList {
  /** How many flagged leads await a decision (all those the filters choose, not only those listed). */
  count: number;
  /** A page of them, the oldest first (the next: `?after=` the last one's id). */
  leads: ReviewLead[];
  /** The leads decided most recently, the latest decision first, each with its record. */
  decided: DecidedLead[];
}
