import { setTimeout as sleep } from 'node:timers/promises';
import { percent } from '../../domain/conversion';
import type {
  MarketerWeekMail,
  ProgramWeekMail,
  ReviewMail,
  Week,
  WeekNumbers,
} from '../../domain/notifications';
import { addDays } from '../../domain/program-stats';
import { composeMarketerWeek, composeProgramWeek, composeReview } from '../../mail/compose';
import { createCountPeriods } from '../count-rollups';
import type { Count, Counts } from '../counts';
import { writeTransaction } from '../db/dialect';
import type { Database, MailRunsTable } from '../db/schema';
import type { LeadReviews } from '../leads/lead-reviews';
import { buildProgramStats } from '../marketer-stats/program-stats';
import { directoryOf, membersOf } from '../people/people';
import type { MailLinks } from './mail-links';
import { queueMail, type Mail } from './mail-outbox';
import { weekBefore } from './schedule';
import { subscribersWanting, unsubscribeHeaders, type Subscriber } from './subscribers';

// The scheduled e-mails (docs/notifications.md): each week's summaries, and each day's review
// digest. Counted with the pages' own counts (count-rollups.ts, program-stats.ts), on the
// counts' connection (database.reads: SQLite's thread, PostgreSQL's pool of its own), once for
// every marketer; then composed, a turn of the event loop each, and queued a few hundred a
// transaction, so that sign-ups keep their pace while two thousand are written.

export interface SummariesOptions {
  database: Database;
  links: MailLinks;
  leadReviews: LeadReviews;
  /** Told when a count found finished days not kept as they are now (the keeper's wake). */
  onUnkept?: () => void;
}

/**
 * What became of a run: this instance ran it (and queued so many e-mails), or another did
 * (`done`), or another is running it now (`running`).
 */
export interface RunOutcome {
  run: RunClaim;
  queued: number;
}

/** Whether a run is this instance's to run (`claimed`), finished, or another's under way. */
export type RunClaim = 'claimed' | 'done' | 'running';

/**
 * E-mails queued a transaction, at most: SQLite's writes hold the event loop and its one writer
 * while they run. At 200 (about 2 MB) the sign-ups during a run of 2,103 waited 47 ms at p99
 * against 9 ms after it (npm run bench:summaries, 1M sign-ups); see docs/performance.md.
 */
const mailsPerTransaction = 20;

/**
 * The pause after each e-mail composed (2-5 ms of the event loop each): the run yields the
 * cores to the sign-ups rather than taking them in a burst; 2,000 e-mails take 10 s longer.
 */
const composePauseMs = 5;

/**
 * A run left unfinished this long (its instance stopped or died) is taken again by the next
 * that comes: what it queued already is not queued twice (the e-mails' dedupe keys).
 */
export const staleRunMs = 30 * 60_000;

/**
 * Takes a run (`kind` of `period`) for this instance: the one whose insert wins runs it; one
 * finished is not run again, nor one another instance started less than staleRunMs ago, unless
 * `force` (the command) says to run it anyway.
 */
export async function claimRun(
  database: Database,
  kind: MailRunsTable['kind'],
  period: string,
  now: Date,
  force = false,
): Promise<RunClaim> {
  const { db } = database;
  const at = now.toISOString();
  const inserted = await db
    .insertInto('mail_runs')
    .values({ kind, period, started_at: at, finished_at: null })
    .onConflict((conflict) => conflict.columns(['kind', 'period']).doNothing())
    .returning('kind')
    .executeTakeFirst();
  if (inserted !== undefined) return 'claimed';
  const run = await db
    .selectFrom('mail_runs')
    .select(['started_at', 'finished_at'])
    .where('kind', '=', kind)
    .where('period', '=', period)
    .executeTakeFirst();
  // Deleted meanwhile (nothing deletes one): taken next time.
  if (run === undefined) return 'running';
  if (!force && run.finished_at !== null) return 'done';
  if (!force && Date.parse(run.started_at) > now.getTime() - staleRunMs) return 'running';
  // Taken from the row as read: of two instances taking a stale run, one updates it.
  const { numUpdatedRows } = await db
    .updateTable('mail_runs')
    .set({ started_at: at, finished_at: null })
    .where('kind', '=', kind)
    .where('period', '=', period)
    .where('started_at', '=', run.started_at)
    .executeTakeFirst();
  return numUpdatedRows > 0n ? 'claimed' : 'running';
}

/** Marks a run finished, `elapsedMs` after its start at `now`: the run's own length is kept. */
async function finishRun(
  database: Database,
  kind: MailRunsTable['kind'],
  period: string,
  now: Date,
  elapsedMs: number,
): Promise<void> {
  await database.db
    .updateTable('mail_runs')
    .set({ finished_at: new Date(now.getTime() + elapsedMs).toISOString() })
    .where('kind', '=', kind)
    .where('period', '=', period)
    .execute();
}

/**
 * Composes each e-mail (a turn of the event loop after each: rendering is the run's work on the
 * event loop) and queues them, a transaction a few hundred; how many were queued (one queued
 * before is not again).
 */
async function queueAll(
  database: Database,
  mails: readonly (() => Promise<Mail>)[],
  now: Date,
): Promise<number> {
  let queued = 0;
  for (let start = 0; start < mails.length; start += mailsPerTransaction) {
    const batch: Mail[] = [];
    for (const mail of mails.slice(start, start + mailsPerTransaction)) {
      batch.push(await mail());
      await sleep(composePauseMs);
    }
    queued += await writeTransaction(database, [], async (trx) => {
      let count = 0;
      for (const mail of batch) if (await queueMail(trx, mail, now)) count += 1;
      return count;
    });
  }
  return queued;
}

/** A period's numbers as a summary shows them: conversion as the pages work it out. */
export function weekNumbers(counts?: Partial<Counts>): WeekNumbers {
  const visits = counts?.visits ?? 0;
  const unique_visitors = counts?.unique_visitors ?? 0;
  const leads = counts?.leads ?? 0;
  return {
    visits,
    unique_visitors,
    leads,
    clients: counts?.clients ?? 0,
    conversion_percent: percent(leads, unique_visitors),
  };
}

function added(rows: readonly WeekNumbers[]): WeekNumbers {
  const sum = (column: 'visits' | 'unique_visitors' | 'leads' | 'clients') =>
    rows.reduce((total, row) => total + row[column], 0);
  return weekNumbers({
    visits: sum('visits'),
    unique_visitors: sum('unique_visitors'),
    leads: sum('leads'),
    clients: sum('clients'),
  });
}

/** One e-mail's parts every kind shares: to whom, under which key, with which headers. */
function addressed(
  links: MailLinks,
  kind: 'weekly' | 'review',
  subscriber: Subscriber,
  period: string,
  words: { subject: string; text: string; html: string },
): Mail {
  return {
    kind,
    to: subscriber.email,
    dedupeKey: `${subscriber.subject}:${period}`,
    ...words,
    headers: unsubscribeHeaders(links, kind, subscriber.unsubscribe_token),
  };
}

/**
 * The marketers' and team leaders' summaries of `week`: each their own numbers against the week
 * before, a team leader's also each member's line (the directory's team) and the team's totals.
 * One count by marketer of each week, for all of them, in one read transaction.
 */
async function marketerSummaries(
  options: SummariesOptions,
  subscribers: readonly Subscriber[],
  week: Week,
  now: Date,
): Promise<WeeklySummary[]> {
  if (subscribers.length === 0) return [];
  const { database, links, onUnkept } = options;
  const before = weekBefore(week);
  const leaders = subscribers.filter((one) => one.audience === 'team_leader');
  const [counted, previous, teams, directory] = await createCountPeriods(database, onUnkept).read(
    async (count, reads) => {
      const counted = await count(['marketing_id'], week.from, now, addDays(week.to, 1));
      const previous = await count(['marketing_id'], before.from, now, week.from);
      const teams = await membersOf(
        reads,
        leaders.map((one) => one.subject),
      );
      const directory = await directoryOf(reads, [
        ...subscribers.map((one) => one.subject),
        ...[...teams.values()].flat(),
      ]);
      return [counted, previous, teams, directory] as const;
    },
  );
  const byMarketer = (rows: Count<'marketing_id'>[]) =>
    new Map(rows.map((row) => [row.marketing_id, weekNumbers(row)]));
  const thisWeek = byMarketer(counted);
  const lastWeek = byMarketer(previous);
  const numbersOf = (id: string, week: Map<string | null, WeekNumbers>) =>
    week.get(id) ?? weekNumbers();
  return subscribers.map((subscriber) => {
    const id = subscriber.subject;
    const mail: MarketerWeekMail = {
      marketing_id: id,
      name: directory.get(id)?.name ?? null,
      week,
      numbers: numbersOf(id, thisWeek),
      previous: numbersOf(id, lastWeek),
      pageUrl: links.myLink,
      unsubscribeUrl: links.unsubscribe('weekly', subscriber.unsubscribe_token),
    };
    if (subscriber.audience === 'team_leader') {
      const members = teams.get(id) ?? [];
      mail.team = {
        members: members.map((member) => ({
          marketing_id: member,
          name: directory.get(member)?.name ?? null,
          numbers: numbersOf(member, thisWeek),
        })),
        totals: added(members.map((member) => numbersOf(member, thisWeek))),
        previous: added(members.map((member) => numbersOf(member, lastWeek))),
      };
    }
    return { subscriber, kind: 'marketer', mail };
  });
}

/** How many of the best a programme's summary names. */
const topShown = 5;

/**
 * The programme's summaries of `week`: its numbers as the programme's page answers them for
 * those days (buildProgramStats), the five marketers and the five campaigns that brought the
 * most clients (only those that brought any).
 */
async function programSummaries(
  options: SummariesOptions,
  subscribers: readonly Subscriber[],
  week: Week,
  now: Date,
): Promise<WeeklySummary[]> {
  if (subscribers.length === 0) return [];
  const { database, links, onUnkept } = options;
  const stats = await buildProgramStats(createCountPeriods(database, onUnkept), week, now);
  // Sorted stably: equal clients keep the page's order (most leads first).
  const byClients = <Row extends { clients: number }>(rows: Row[]) =>
    rows
      .filter((row) => row.clients > 0)
      .sort((a, b) => b.clients - a.clients)
      .slice(0, topShown);
  const marketers = byClients(
    stats.marketers.filter(
      (row): row is typeof row & { marketing_id: string } => row.marketing_id !== null,
    ),
  ).map(({ marketing_id, name, clients, leads }) => ({ marketing_id, name, clients, leads }));
  const campaigns = byClients(
    stats.campaigns.filter(
      (row): row is typeof row & { utm_source: string; utm_campaign: string } =>
        !row.other && row.utm_source !== null && row.utm_campaign !== null,
    ),
  ).map(({ utm_source, utm_campaign, clients, leads }) => ({
    utm_source,
    utm_campaign,
    clients,
    leads,
  }));
  return subscribers.map((subscriber) => {
    const mail: ProgramWeekMail = {
      week,
      totals: weekNumbers(stats.totals),
      previous: weekNumbers(stats.previous.totals),
      marketers,
      campaigns,
      pageUrl: links.program,
      unsubscribeUrl: links.unsubscribe('weekly', subscriber.unsubscribe_token),
    };
    return { subscriber, kind: 'program', mail };
  });
}

/** One person's summary of a week: a marketer's (or a team leader's), or the programme's. */
export type WeeklySummary = { subscriber: Subscriber } & (
  { kind: 'marketer'; mail: MarketerWeekMail } | { kind: 'program'; mail: ProgramWeekMail }
);

/** The summaries of `week` of everyone who wants one now, a week with nothing in it too. */
export async function weeklySummaries(
  options: SummariesOptions,
  week: Week,
  now: Date,
): Promise<WeeklySummary[]> {
  const subscribers = await subscribersWanting(options.database.db, 'weekly_summary');
  return [
    ...(await marketerSummaries(
      options,
      subscribers.filter((one) => one.audience !== 'program'),
      week,
      now,
    )),
    ...(await programSummaries(
      options,
      subscribers.filter((one) => one.audience === 'program'),
      week,
      now,
    )),
  ];
}

/**
 * Queues the summaries of `week` to everyone who wants one (a week with nothing in it too), as
 * a run of mail_runs: none when another instance runs it or ran it (unless `force`).
 */
export async function sendWeekly(
  options: SummariesOptions,
  week: Week,
  now: Date,
  force = false,
): Promise<RunOutcome> {
  const { database } = options;
  const started = performance.now();
  const run = await claimRun(database, 'weekly', week.from, now, force);
  if (run !== 'claimed') return { run, queued: 0 };
  const { brand } = options.links;
  const mails = (await weeklySummaries(options, week, now)).map(
    (summary) => async () =>
      addressed(
        options.links,
        'weekly',
        summary.subscriber,
        week.from,
        summary.kind === 'program'
          ? await composeProgramWeek(summary.mail, brand)
          : await composeMarketerWeek(summary.mail, brand),
      ),
  );
  const queued = await queueAll(database, mails, now);
  await finishRun(database, 'weekly', week.from, now, performance.now() - started);
  return { run, queued };
}

/**
 * The review digest of now, for each programme role who wants it: how many leads await review
 * and how many whole days the oldest has waited, as the review list counts them (its count and
 * its head); none when nothing awaits.
 */
export async function reviewDigests(
  { database, links, leadReviews }: SummariesOptions,
  now: Date,
): Promise<{ subscriber: Subscriber; mail: ReviewMail }[]> {
  const subscribers = (await subscribersWanting(database.db, 'review_digest')).filter(
    (one) => one.audience === 'program',
  );
  if (subscribers.length === 0) return [];
  const list = await leadReviews.list({ awaiting: 1, decided: 0 });
  const oldest = list === 'not_found' ? undefined : list.leads[0];
  if (list === 'not_found' || list.count === 0 || oldest === undefined) return [];
  const oldestDays = Math.max(
    0,
    Math.floor((now.getTime() - Date.parse(oldest.created_at)) / 86_400_000),
  );
  return subscribers.map((subscriber) => ({
    subscriber,
    mail: {
      awaiting: list.count,
      oldestDays,
      listUrl: links.reviewList,
      unsubscribeUrl: links.unsubscribe('review', subscriber.unsubscribe_token),
    },
  }));
}

/**
 * Queues the day's review digest (`day`: the schedule's day) to the programme's people who want
 * it: how many leads await review now and how long the oldest has waited, as the review list
 * counts them; none on a day with nothing to review.
 */
export async function sendReviewDigest(
  options: SummariesOptions,
  day: string,
  now: Date,
  force = false,
): Promise<RunOutcome> {
  const { database, links } = options;
  const started = performance.now();
  const run = await claimRun(database, 'review', day, now, force);
  if (run !== 'claimed') return { run, queued: 0 };
  const mails = (await reviewDigests(options, now)).map(
    ({ subscriber, mail }) =>
      async () =>
        addressed(links, 'review', subscriber, day, await composeReview(mail, links.brand)),
  );
  const queued = await queueAll(database, mails, now);
  await finishRun(database, 'review', day, now, performance.now() - started);
  return { run, queued };
}
