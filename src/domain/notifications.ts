/**
 * The e-mails the programme sends its people who ask for them (docs/notifications.md): what one
 * may ask for, the API that sets it, the pages its links open, and what each e-mail says. No
 * prospect is in any of it: marketer ids and names, packages, campaigns and numbers only.
 */
import type { LinkNumbers } from './marketer-stats';

/** `PUT` sets a person's choices, `GET` answers them; with the platform's token. */
export const notificationsPath = '/api/notifications';

/** Who is asking: a marketer, a team leader (a marketer with a team), or a programme role. */
export const audiences = ['marketer', 'team_leader', 'program'] as const;
export type Audience = (typeof audiences)[number];

export const notificationChoices = ['weekly_summary', 'client_alerts', 'review_digest'] as const;
export type NotificationChoice = (typeof notificationChoices)[number];
export type Choices = Record<NotificationChoice, boolean>;

/** The choices that fit each audience: one set true for another is refused (400). */
export const choicesFor: Record<Audience, readonly NotificationChoice[]> = {
  marketer: ['weekly_summary', 'client_alerts'],
  team_leader: ['weekly_summary', 'client_alerts'],
  program: ['weekly_summary', 'review_digest'],
};

/** `GET` and `PUT /api/notifications`'s answer. */
export interface Notifications extends Choices {
  /** The address e-mails go to, or would once confirmed; null when none is known. */
  email: string | null;
  /** Whether that address is confirmed: nothing but a confirmation is sent before. */
  confirmed: boolean;
  /** A confirmation e-mail waits to be used for this address (sent on this PUT or before). */
  confirmation_sent: boolean;
  /** Which choices fit the person (the others are always false). */
  offered: NotificationChoice[];
}

/** The kinds of e-mail, as `Feedback-ID: <kind>:tasjeel` names them. */
export const mailKinds = ['confirmation', 'client', 'weekly', 'review'] as const;
export type MailKind = (typeof mailKinds)[number];

export function isMailKind(value: string): value is MailKind {
  return (mailKinds as readonly string[]).includes(value);
}

/** The choice that one-click unsubscribe from an e-mail of each kind turns off. */
export const choiceOfKind: Record<Exclude<MailKind, 'confirmation'>, NotificationChoice> = {
  client: 'client_alerts',
  weekly: 'weekly_summary',
  review: 'review_digest',
};

/** A confirmation link lasts this long, and is used once. */
export const confirmationDays = 7;
/** At most this many confirmation e-mails a person a day, and one an address an hour. */
export const confirmationsPerDay = 3;

/** The confirmation page (its button posts to itself), relative to basePath. */
export const confirmPath = '/notifications/confirm/:token';
/** The unsubscribe page of List-Unsubscribe (one-click: a POST to it), relative to basePath. */
export const unsubscribePath = '/notifications/stop/:kind/:token';

/**
 * What the server made of a post to a confirmation or unsubscribe page: done (confirmed, or
 * stopped), a link unknown, used or expired, or the database out of reach. Absent on a GET,
 * which shows the button and changes nothing.
 */
export type MailLinkOutcome = 'done' | 'invalid' | 'failed';

/** One period's numbers in a summary; conversion: leads per hundred unique visitors. */
export type WeekNumbers = Pick<LinkNumbers, 'visits' | 'unique_visitors' | 'leads' | 'clients'> & {
  conversion_percent: number | null;
};

/** A week: its first (Sunday) and last (Saturday) UTC days, YYYY-MM-DD. */
export interface Week {
  from: string;
  to: string;
}

/** What every e-mail but the confirmation carries: its one-click unsubscribe link. */
export interface MailFooter {
  unsubscribeUrl: string;
}

export interface ConfirmationMail {
  email: string;
  /** The choices the link confirms. */
  choices: NotificationChoice[];
  confirmUrl: string;
  /** Withdraws the request (List-Unsubscribe of the confirmation). */
  unsubscribeUrl: string;
}

/** A lead became a client: the package (null: the free trial) and the day, nothing of the prospect. */
export interface ClientMail extends MailFooter {
  packageKey: string | null;
  /** The UTC day of the change, YYYY-MM-DD. */
  day: string;
  pageUrl: string;
}

export interface WeeklyLine {
  marketing_id: string;
  name: string | null;
  numbers: WeekNumbers;
}

/** A marketer's week, and a team leader's with their team. */
export interface MarketerWeekMail extends MailFooter {
  marketing_id: string;
  name: string | null;
  week: Week;
  numbers: WeekNumbers;
  previous: WeekNumbers;
  pageUrl: string;
  team?: { members: WeeklyLine[]; totals: WeekNumbers; previous: WeekNumbers };
}

/** The programme's week: totals against the week before, and who and what brought clients. */
export interface ProgramWeekMail extends MailFooter {
  week: Week;
  totals: WeekNumbers;
  previous: WeekNumbers;
  /** At most five, most clients first; only those with clients. */
  marketers: { marketing_id: string; name: string | null; clients: number; leads: number }[];
  campaigns: { utm_source: string; utm_campaign: string; clients: number; leads: number }[];
  pageUrl: string;
}

/** The leads awaiting review now: how many, since when the oldest waits, the list. */
export interface ReviewMail extends MailFooter {
  awaiting: number;
  /** Whole days the oldest has waited. */
  oldestDays: number;
  listUrl: string;
}
