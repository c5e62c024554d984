import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import {
  leadFlags,
  type LeadReview,
  type ReviewLead,
  type ReviewList,
} from '../../domain/lead-review';
import { guarded } from '../db/database';
import { writeTransaction } from '../db/dialect';
import type { Database } from '../db/schema';
import { deletionLock } from '../registrations/personal-data';
import { queueEvents } from '../webhooks/outbox';
import { leadOf } from './lead-statuses';

export type Decided = { kind: 'decided'; review: LeadReview } | { kind: 'not_found' };

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
   * The flagged leads with no decision yet (how many, and the newest of them), and the leads
   * decided most recently with their decisions: at most as many of each as `limits` say.
   */
  list(limits: { awaiting: number; decided: number }): Promise<ReviewList>;
}

export function createLeadReviews(database: Database): LeadReviews {
  const { db } = database;
  // What the review list shows of a lead (its phone only to take the last digits).
  const leadColumns = [
    'lead.id',
    'lead.created_at',
    'lead.marketing_id',
    'lead.package_key',
    'lead.phone',
  ] as const;
  // A flagged lead with no decision, its lead's row named `lead`.
  const awaitingLeads = () =>
    db
      .selectFrom('registrations as lead')
      .where('lead.repeat_of', 'is', null)
      .where('lead.id', 'in', db.selectFrom('lead_flags').select('registration_id'))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('lead_reviews as decision')
              .select(sql<number>`1`.as('one'))
              .whereRef('decision.registration_id', '=', 'lead.id'),
          ),
        ),
      );

  return {
    decide: (id, { credited, note }, by, now) =>
      guarded(database, () =>
        // The deletion's lock: a decision is never written for a lead being deleted.
        writeTransaction(database, [deletionLock], async (trx): Promise<Decided> => {
          const lead = await leadOf(trx, { id });
          if (lead === undefined) return { kind: 'not_found' };
          const row = {
            id: randomUUID(),
            registration_id: lead.id,
            credited: credited ? 1 : 0,
            reviewed_by: by,
            note,
            reviewed_at: now.toISOString(),
          };
          await trx.insertInto('lead_reviews').values(row).execute();
          await queueEvents(trx, [
            { subjectId: row.id, type: 'registration.reviewed', at: row.reviewed_at },
          ]);
          return {
            kind: 'decided',
            review: { id: lead.id, credited, reviewed_by: by, reviewed_at: row.reviewed_at, note },
          };
        }),
      ),

    list: (limits) =>
      guarded(database, async () => {
        const [total, awaiting, latest] = await Promise.all([
          awaitingLeads()
            .select((eb) => eb.fn.countAll<number | string>().as('count'))
            .executeTakeFirstOrThrow(),
          awaitingLeads()
            .select(leadColumns)
            .orderBy('lead.created_at', 'desc')
            .orderBy('lead.id', 'desc')
            .limit(limits.awaiting)
            .execute(),
          db
            .selectFrom('lead_reviews')
            .select((eb) => ['registration_id', eb.fn.max('reviewed_at').as('latest')])
            .groupBy('registration_id')
            .orderBy('latest', 'desc')
            .orderBy('registration_id', 'desc')
            .limit(limits.decided)
            .execute(),
        ]);
        const decidedIds = latest.map((row) => row.registration_id);
        const ids = [...awaiting.map((lead) => lead.id), ...decidedIds];
        if (ids.length === 0) return { count: Number(total.count), leads: [], decided: [] };
        const [flags, decidedLeads, reviews] = await Promise.all([
          db
            .selectFrom('lead_flags as flag')
            .leftJoin('registrations as other', 'other.id', 'flag.other_id')
            .select([
              'flag.registration_id',
              'flag.flag',
              'other.id as other_found',
              'other.marketing_id as other_marketing_id',
            ])
            .where('flag.registration_id', 'in', ids)
            .execute(),
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
        const shown = (lead: (typeof awaiting)[number]): ReviewLead => ({
          id: lead.id,
          created_at: lead.created_at,
          marketing_id: lead.marketing_id,
          package_key: lead.package_key,
          phone_end: lead.phone.slice(-3),
          flags: flags
            .filter((flag) => flag.registration_id === lead.id)
            .sort((a, b) => leadFlags.indexOf(a.flag) - leadFlags.indexOf(b.flag))
            .map((flag) => ({
              flag: flag.flag,
              other: flag.other_found === null ? null : { marketing_id: flag.other_marketing_id },
            })),
        });
        const byId = new Map(decidedLeads.map((lead) => [lead.id, lead]));
        return {
          count: Number(total.count),
          leads: awaiting.map(shown),
          decided: decidedIds.flatMap((id) => {
            const lead = byId.get(id);
            // Deleted between the two reads: its decisions went with it.
            if (lead === undefined) return [];
            return [
              {
                ...shown(lead),
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
