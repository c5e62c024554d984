import type { Kysely } from 'kysely';
import type { LeadFlag } from '../../domain/lead-review';
import type { LeadStatus } from '../../domain/lead-status';
import type { Audience, MailKind } from '../../domain/notifications';

// Column types as stored. created_at is UTC ISO-8601 text on both kinds, so that ordering and
// the 24-hour window compare as plain strings and the export prints the same text from either.
export interface RegistrationsTable {
  id: string;
  created_at: string;
  name: string;
  email: string | null;
  phone: string;
  notes: string;
  marketing_id: string | null;
  package_key: string | null;
  source: string | null;
  /** A repeat's lead (same phone and notes within 24 hours); null on a lead. */
  repeat_of: string | null;
  // The campaign parameters of the page the sign-up was sent from; null when absent.
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  // The consent's evidence (docs/personal-data.md): the privacy notice the form linked when the
  // submission came, and how it came; '' for none, and on rows stored before they were kept.
  privacy_url: string;
  privacy_version: string;
  channel: SignUpChannel | '';
  /**
   * 1 when the submission sent the notice version its page showed (privacy_version is that one),
   * 0 when it sent none (privacy_version is the server's at the time, as on every row before).
   */
  privacy_attested: number;
  /** What became of the lead (its last change); null on a repeat, whose lead's is the one. */
  status: LeadStatus | null;
  /** When the status last changed; null while the lead is as it came (`new`) or on a repeat. */
  status_changed_at: string | null;
  /**
   * Its address (IPv6: its /48) hashed under the day's visitor salt, as visits.address_hash;
   * '' when unknown, and on rows stored before it was kept (the flags, docs/flags.md).
   */
  address_hash: string;
  /** When the server served the form it came from (its signed stamp); null without one. */
  served_at: string | null;
}

/** How a submission came: the pages' JSON API call, or the form posted without JavaScript. */
export type SignUpChannel = 'api' | 'form';

/**
 * Its columns in the export's order: each added later is appended (the lead's status, then
 * whether the notice was attested), so a reader of the export by position keeps working.
 */
export const registrationColumns = [
  'id',
  'created_at',
  'name',
  'email',
  'phone',
  'notes',
  'marketing_id',
  'package_key',
  'source',
  'repeat_of',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'privacy_url',
  'privacy_version',
  'channel',
  'status',
  'status_changed_at',
  'privacy_attested',
] as const satisfies (keyof RegistrationsTable)[];

// One row per UTC day (YYYY-MM-DD), link and visitor; '' for no marketer or no package.
export interface VisitsTable {
  day: string;
  marketing_id: string;
  package_key: string;
  visitor_hash: string;
  count: number;
  // The campaign of the visitor's first view of the link that day; '' for none, otherCampaign
  // past the limits of campaigns.ts.
  utm_source: string;
  utm_campaign: string;
  // The visitor's address (IPv6: its /48), hashed as visitor_hash is: for the limits per address.
  address_hash: string;
}

// A finished day's visits per link and campaign, rolled up from `visits`: no visitor is in it.
export interface VisitTotalsTable {
  day: string;
  marketing_id: string;
  package_key: string;
  utm_source: string;
  utm_campaign: string;
  visits: number;
  visitors: number;
}

// Deleted submissions, counted per UTC day of the submission and link and campaign of its lead
// ('' for none) before they go, so that every count of a lead stays right: no person is in it.
export interface SignUpTotalsTable {
  day: string;
  marketing_id: string;
  package_key: string;
  utm_source: string;
  utm_campaign: string;
  leads: number;
  repeats: number;
  /** Of those leads, how many had each outcome when they were deleted. */
  contacted: number;
  qualified: number;
  clients: number;
  lost: number;
  /** Of those leads, how many had a flag, and how many were not credited (counted in no other). */
  flagged: number;
  not_credited: number;
}

/** Why a lead's credit is doubtful (docs/flags.md). */
export type { LeadFlag } from '../../domain/lead-review';

// One row a flag of a lead; other_id names the earlier lead of a `contested` one.
export interface LeadFlagsTable {
  registration_id: string;
  flag: LeadFlag;
  other_id: string | null;
}

// Every decision on a lead's credit, only ever added to: the latest one counts.
export interface LeadReviewsTable {
  id: string;
  registration_id: string;
  /** 1 credited, 0 not credited. */
  credited: number;
  /** The deciding token's `sub`. */
  reviewed_by: string;
  note: string;
  reviewed_at: string;
}

/** Every change of a lead's status: the lead's history, and the subject of its webhook event. */
export interface LeadStatusChangesTable {
  id: string;
  /** The lead. */
  registration_id: string;
  status: LeadStatus;
  previous_status: LeadStatus;
  changed_at: string;
  /** Who sent it: the CRM through the API, or a person with `npm run lead`. */
  changed_by: 'api' | 'cli';
}

export type WebhookEventType =
  | 'registration.created'
  | 'registration.repeated'
  | 'registration.status_changed'
  | 'registration.reviewed'
  | 'registration.flagged';
export type WebhookEventStatus = 'pending' | 'delivered' | 'failed';

// The outbox (docs/webhooks.md). An event is about a subject, whose id its type tells how to
// read (a registration, for a status change its row in lead_status_changes, for a decision on
// a lead's credit its row in lead_reviews). Times are ISO text, as in registrations.
// `locked_until` is the claim of the instance delivering it (a lease).
export interface WebhookEventsTable {
  id: string;
  subject_id: string;
  type: WebhookEventType;
  status: WebhookEventStatus;
  attempts: number;
  created_at: string;
  next_attempt_at: string;
  locked_until: string | null;
  delivered_at: string | null;
  last_error: string | null;
}

// A solved proof-of-work challenge, by its signature, kept until it expires (ISO text).
export interface SpentChallengesTable {
  signature: string;
  expires_at: string;
}

/** Every table, for Kysely. */
/**
 * A finished day's counts as countAll gives them by the keys `by` names (count-rollups.ts): the
 * other keys '', as every key's none; kept until the day's counts change. The columns of
 * sign_up_totals, and the visits and the leads awaiting review.
 */
export interface CountRollupsTable extends SignUpTotalsTable {
  by: string;
  visits: number;
  unique_visitors: number;
  awaiting_review: number;
}

/** Which days count_rollups holds by `by`, as of which changes of the day and which count rule. */
export interface CountRollupDaysTable {
  by: string;
  day: string;
  version: string;
  changes: number;
}

/** How many times a day's counts changed after it (a status, a decision, an erasure). */
export interface CountDayChangesTable {
  day: string;
  changes: number;
}

/**
 * The programme's people, as the provider's platform sends them (docs/program.md), by marketing
 * id. Times are ISO text, as in registrations.
 */
export interface PeopleTable {
  marketing_id: string;
  /** Null once retention has erased it (docs/personal-data.md); required on every put. */
  name: string | null;
  /** Their team leader's marketing id, who need not be in the directory; null for none. */
  team_leader_id: string | null;
  email: string | null;
  /** 1 active, 0 not. */
  active: number;
  /** When they were last put inactive after being active (or first put inactive); null while active. */
  inactive_since: string | null;
  /** When the platform last put them. */
  updated_at: string;
}

/** The kinds of e-mail (`Feedback-ID: <kind>:tasjeel`). */
export type { MailKind } from '../../domain/notifications';
export type MailStatus = 'pending' | 'sent' | 'failed';

// The e-mails' outbox (docs/email.md): each row the e-mail whole, as it was queued. Times are
// ISO text, as in registrations. `headers` is a JSON object of extra headers; `locked_until` is
// the claim of the instance sending it (a lease); `message_id` is set by its first claim.
export interface MailOutboxTable {
  id: string;
  kind: MailKind;
  dedupe_key: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  headers: string;
  status: MailStatus;
  attempts: number;
  created_at: string;
  next_attempt_at: string;
  locked_until: string | null;
  message_id: string | null;
  sent_at: string | null;
  last_error: string | null;
}

// Who asked to be told what (docs/notifications.md), by their token's subject. `email` is the
// address confirmed (null until one is); the choices are 1 or 0. Times are ISO text.
export interface MailSubscribersTable {
  subject: string;
  /** Which choices fit them: a marketer's, a team leader's or a programme role's. */
  audience: Audience;
  email: string | null;
  confirmed_at: string | null;
  weekly_summary: number;
  client_alerts: number;
  review_digest: number;
  /** The token of their unsubscribe links: random, naming neither the address nor the person. */
  unsubscribe_token: string;
  updated_at: string;
}

// A confirmation e-mail's link, by the SHA-256 of its token (hex): the address and the choices
// (a JSON object) it confirms, single-use (used_at) until expires_at.
export interface MailConfirmationsTable {
  token_hash: string;
  subject: string;
  email: string;
  choices: string;
  /** The version of the text the person was shown when they asked. */
  text_version: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

// Every consent given (a confirmation used), only ever added to: who, which address, which
// choices (JSON), the version of the text shown, when.
export interface MailConsentsTable {
  id: string;
  subject: string;
  email: string;
  choices: string;
  text_version: string;
  consented_at: string;
}

// A run of the scheduled e-mails: kind 'weekly' with the week's first day, 'review' with the day.
export interface MailRunsTable {
  kind: 'weekly' | 'review';
  period: string;
  started_at: string;
  finished_at: string | null;
}

export interface Tables {
  registrations: RegistrationsTable;
  visits: VisitsTable;
  visit_totals: VisitTotalsTable;
  sign_up_totals: SignUpTotalsTable;
  lead_status_changes: LeadStatusChangesTable;
  webhook_events: WebhookEventsTable;
  spent_challenges: SpentChallengesTable;
  lead_flags: LeadFlagsTable;
  lead_reviews: LeadReviewsTable;
  count_rollups: CountRollupsTable;
  count_rollup_days: CountRollupDaysTable;
  count_day_changes: CountDayChangesTable;
  people: PeopleTable;
  mail_outbox: MailOutboxTable;
  mail_subscribers: MailSubscribersTable;
  mail_confirmations: MailConfirmationsTable;
  mail_consents: MailConsentsTable;
  mail_runs: MailRunsTable;
}

export type DatabaseKind = 'sqlite' | 'postgres';

/** An open database: Kysely for every query, and how to tell "out of reach" from a bug. */
export interface Database {
  kind: DatabaseKind;
  /** Which database, for messages: never the password. */
  where: string;
  /** Every query goes through it (on PostgreSQL: the pool with the requests' time limits). */
  db: Kysely<Tables>;
  /**
   * The counts' own connection, never one a sign-up waits for (docs/architecture.md): on SQLite
   * a worker thread's read-only connection, off the event loop (the same connection as `db` for
   * an in-memory database, which no thread can share); on PostgreSQL a pool of its own.
   */
  reads: Kysely<Tables>;
  /**
   * A counts' thread's count of a finished day by every kept key (count-day.ts): the keeper's
   * adding up, off the event loop. Null where the keeper counts on its own connection (an
   * in-memory SQLite has no thread).
   */
  countDay: ((date: string, until: string) => Promise<CountRollupsTable[][]>) | null;
  /** The migrations' own connection: no statement time-out cuts a long migration off. */
  migrations: Kysely<Tables>;
  isUnavailable: (error: unknown) => boolean;
  /** PostgreSQL's pool, for the metrics; null on SQLite. */
  poolState: (() => { inUse: number; idle: number; waiting: number }) | null;
  /** How many sign-up batches may be written at once: SQLite has one writer. */
  writers: number;
  /** Closes every connection; calling it again does nothing. */
  close: () => Promise<void>;
}
