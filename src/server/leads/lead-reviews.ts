import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  leadFlags,
  type LeadFlag,
  type LeadReview,
  type ReviewLead,
  type ReviewList,
} from '../../domain/lead-review';
import type { MarketerLeads } from '../../domain/program-marketer';
import { guarded } from '../db/database';
import { writeTransaction } from '../db/dialect';
import type { Database, RegistrationsTable, Tables } from '../db/schema';
import { notCredited } from '../counts';
import { directoryOf } from '../people/people';
import { deletionLock } from '../registrations/personal-data';
import { queueEvents } from '../webhooks/outbox';
import { registrationIdPattern } from '../registrations/registration-repository';
import { leadOf } from './lead-statuses';

export type Decided = { kind: 'decided'; review: LeadReview } | { kind: 'not_found' };
export type DecidedAll = { kind: 'decided'; reviews: LeadReview[] } | { kind: 'not_found' };

/** Which awaiting leads the review list answers, and how many of them and of the decided. */
export interface ReviewQuery {
  awaiting: number;
  decided: number;
  /** The leads after this one (its id) in the queue's order: the next page. */
  after?: string;
  /** Only this marketer's leads. */
  marketingId?: string;
  /** Only the leads with this flag. */
  flag?: LeadFlag;
}

/** The decisions on leads' credit (docs/flags.md), and the flagged leads that await one. */
export interface LeadReviews {
  /**
   * Records a decision on a lead (a repeat's id: on its lead), by the token's `sub`, with its
   * webhook event, in one transaction. Every decision is a new row; the latest one counts.
   */
  decide(
    id: string,
    decision: { credited: boolean; note: string },
    by: string,
    now: Date,
  ): Promise<Decided>;
  /**
   * The same decision on each lead (a lead named twice, or by a repeat's id too, once), each its
   * own record with its own event, in one transaction: all of them, or none when an id names no
   * submission.
   */
  decideAll(
    ids: readonly string[],
    decision: { credited: boolean; note: string },
    by: string,
    now: Date,
  ): Promise<DecidedAll>;
  /**
   * The queue of flagged leads with no decision yet, the oldest first (how many the filters
   * choose, and up to `awaiting` of them from `after` on), and the leads decided most recently
   * with their decisions; `not_found` when `after` names no submission.
   */
  list(query: ReviewQuery): Promise<ReviewList | 'not_found'>;
}

// What the review list shows of a lead (its phone only to take the last digits).
const leadColumns = [
  'lead.id',
  'lead.created_at',
  'lead.marketing_id',
  'lead.package_key',
  'lead.phone',
] as const;
type ListedLead = Pick<
  RegistrationsTable,
  'id' | 'created_at' | 'marketing_id' | 'package_key' | 'phone'
>;

/**
 * A flagged lead with no decision (of the marketer, with the flag, when asked), its lead's row
 * named `lead`.
 */
const awaitingLeads = (
  db: Kysely<Tables>,
  { marketingId, flag }: Omit<ReviewQuery, 'awaiting' | 'decided'>,
) =>
  db
    .selectFrom('registrations as lead')
    .where('lead.repeat_of', 'is', null)
    .$if(marketingId !== undefined, (query) => query.where('lead.marketing_id', '=', marketingId!))
    .where(
      'lead.id',
      'in',
      db
        .selectFrom('lead_flags')
        .select('registration_id')
        .$if(flag !== undefined, (query) => query.where('flag', '=', flag!)),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('lead_reviews as decision')
            .select(sql<number>`1`.as('one'))
            .whereRef('decision.registration_id', '=', 'lead.id'),
        ),
      ),
    );

/** Leads as the review list shows them: each flag in words, the marketers by name. */
async function shownLeads(db: Kysely<Tables>, leads: readonly ListedLead[]): Promise<ReviewLead[]> {
  if (leads.length === 0) return [];
  const flags = await db
    .selectFrom('lead_flags as flag')
    .leftJoin('registrations as other', 'other.id', 'flag.other_id')
    .select([
      'flag.registration_id',
      'flag.flag',
      'other.id as other_found',
      'other.marketing_id as other_marketing_id',
    ])
    .where(
      'flag.registration_id',
      'in',
      leads.map((lead) => lead.id),
    )
    .execute();
  // The marketers' names as the directory has them now (docs/program.md).
  const directory = await directoryOf(
    db,
    [...leads, ...flags.map((flag) => ({ marketing_id: flag.other_marketing_id }))].flatMap(
      (lead) => lead.marketing_id ?? [],
    ),
  );
  const nameOf = (id: string | null) => (id === null ? null : (directory.get(id)?.name ?? null));
  return leads.map((lead) => ({
    id: lead.id,
    created_at: lead.created_at,
    marketing_id: lead.marketing_id,
    name: nameOf(lead.marketing_id),
    package_key: lead.package_key,
    phone_end: lead.phone.slice(-3),
    flags: flags
      .filter((flag) => flag.registration_id === lead.id)
      .sort((a, b) => leadFlags.indexOf(a.flag) - leadFlags.indexOf(b.flag))
      .map((flag) => ({
        flag: flag.flag,
        other:
          flag.other_found === null
            ? null
            : { marketing_id: flag.other_marketing_id, name: nameOf(flag.other_marketing_id) },
      })),
  }));
}

/**
 * One marketer's leads for their page (docs/program.md), read on `db` (the counts'
 * transaction, with their numbers): those awaiting a decision, whatever the period, the oldest
 * first, and those of the period (`since` to before the day `until`) whose latest decision is
 * "not credited", the latest first; up to `shown` of each, with how many there are.
 */
export async function marketerLeads(
  db: Kysely<Tables>,
  marketingId: string,
  { since, until }: { since: string; until: string },
  shown: number,
): Promise<{ awaiting_review: MarketerLeads; not_credited: MarketerLeads }> {
  const notCreditedLeads = () =>
    db
      .selectFrom('registrations as lead')
      .where('lead.repeat_of', 'is', null)
      .where('lead.marketing_id', '=', marketingId)
      .where('lead.created_at', '>=', since)
      .where('lead.created_at', '<', until)
      .where('lead.id', 'in', notCredited(db));
  const count = (query: ReturnType<typeof notCreditedLeads>) =>
    query.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
  // One after the other: `db` is a transaction, one connection.
  const awaitingCount = await count(awaitingLeads(db, { marketingId }));
  const awaiting = await awaitingLeads(db, { marketingId })
    .select(leadColumns)
    .orderBy('lead.created_at')
    .orderBy('lead.id')
    .limit(shown)
    .execute();
  const notCreditedCount = await count(notCreditedLeads());
  const refused = await notCreditedLeads()
    .select(leadColumns)
    .orderBy('lead.created_at', 'desc')
    .orderBy('lead.id', 'desc')
    .limit(shown)
    .execute();
  const leads = await shownLeads(db, [...awaiting, ...refused]);
  return {
    awaiting_review: { count: Number(awaitingCount.count), leads: leads.slice(0, awaiting.length) },
    not_credited: { count: Number(notCreditedCount.count), leads: leads.slice(awaiting.length) },
  };
}

export function createLeadReviews(database: Database): LeadReviews {
  const { db } = database;
  const decideAll: LeadReviews['decideAll'] = (ids, { credited, note }, by, now) =>
    guarded(database, () =>
      // The deletion's lock: a decision is never written for a lead being deleted.
      writeTransaction(database, [deletionLock], async (trx): Promise<DecidedAll> => {
        const leads = new Map<string, { id: string; created_at: string }>();
        for (const id of ids) {
          const lead = await leadOf(trx, { id });
          if (lead === undefined) return { kind: 'not_found' };
          leads.set(lead.id, lead);
        }
        const reviewedAt = now.toISOString();
        const rows = [...leads.values()].map((lead) => ({
          id: randomUUID(),
          registration_id: lead.id,
          credited: credited ? 1 : 0,
          reviewed_by: by,
          note,
          reviewed_at: reviewedAt,
        }));
        // Its lead's day is marked changed by the table's trigger (count-rollups.ts).
        await trx.insertInto('lead_reviews').values(rows).execute();
        await queueEvents(
          trx,
          rows.map((row) => ({ subjectId: row.id, type: 'registration.reviewed', at: reviewedAt })),
        );
        return {
          kind: 'decided',
          reviews: [...leads.keys()].map((id) => ({
            id,
            credited,
            reviewed_by: by,
            reviewed_at: reviewedAt,
            note,
          })),
        };
      }),
    );

  return {
    decideAll,
    decide: async (id, decision, by, now) => {
      const decided = await decideAll([id], decision, by, now);
      return decided.kind === 'decided'
        ? { kind: 'decided', review: decided.reviews[0]! }
        : decided;
    },

    list: (query) =>
      guarded(database, async () => {
        const after =
          query.after === undefined
            ? undefined
            : registrationIdPattern.test(query.after)
              ? await db
                  .selectFrom('registrations')
                  .select(['created_at', 'id'])
                  .where('id', '=', query.after)
                  .executeTakeFirst()
              : undefined;
        if (query.after !== undefined && after === undefined) return 'not_found';
        const [total, awaiting, latest] = await Promise.all([
          awaitingLeads(db, query)
            .select((eb) => eb.fn.countAll<number | string>().as('count'))
            .executeTakeFirstOrThrow(),
          awaitingLeads(db, query)
            .select(leadColumns)
            .$if(after !== undefined, (page) =>
              page.where((eb) =>
                eb(
                  eb.refTuple('lead.created_at', 'lead.id'),
                  '>',
                  eb.tuple(after!.created_at, after!.id),
                ),
              ),
            )
            // The oldest first: a queue worked from its head, which no flood of newer leads
            // can push out of sight.
            .orderBy('lead.created_at')
            .orderBy('lead.id')
            .limit(query.awaiting)
            .execute(),
          db
            .selectFrom('lead_reviews')
            .select((eb) => ['registration_id', eb.fn.max('reviewed_at').as('latest')])
            .groupBy('registration_id')
            .orderBy('latest', 'desc')
            .orderBy('registration_id', 'desc')
            .limit(query.decided)
            .execute(),
        ]);
        const decidedIds = latest.map((row) => row.registration_id);
        const ids = [...awaiting.map((lead) => lead.id), ...decidedIds];
        if (ids.length === 0) return { count: Number(total.count), leads: [], decided: [] };
        const [decidedLeads, reviews] = await Promise.all([
          decidedIds.length === 0
            ? []
            : db
                .selectFrom('registrations as lead')
                .select(leadColumns)
                .where('lead.id', 'in', decidedIds)
                .execute(),
          decidedIds.length === 0
            ? []
            : db
                .selectFrom('lead_reviews')
                .select(['registration_id', 'credited', 'reviewed_by', 'reviewed_at', 'note'])
                .where('registration_id', 'in', decidedIds)
                // The latest first, as the counts take it (counts.ts, notCredited).
                .orderBy('reviewed_at', 'desc')
                .orderBy('id', 'desc')
                .execute(),
        ]);
        const shown = await shownLeads(db, [...awaiting, ...decidedLeads]);
        const byId = new Map(shown.slice(awaiting.length).map((lead) => [lead.id, lead]));
        return {
          count: Number(total.count),
          leads: shown.slice(0, awaiting.length),
          decided: decidedIds.flatMap((id) => {
            const lead = byId.get(id);
            // Deleted between the two reads: its decisions went with it.
            if (lead === undefined) return [];
            return [
              {
                ...lead,
                reviews: reviews
                  .filter((review) => review.registration_id === id)
                  .map(({ credited, reviewed_by, reviewed_at, note }) => ({
                    credited: credited === 1,
                    reviewed_by,
                    reviewed_at,
                    note,
                  })),
              },
            ];
          }),
        };
      }),
  };
}
