import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { leadFlags, type LeadReview, type ReviewList } from '../../domain/lead-review';
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
  /** The flagged leads with no decision yet: how many, and the newest `limit` of them. */
  awaiting(limit: number): Promise<ReviewList>;
}

export function createLeadReviews(database: Database): LeadReviews {
  const { db } = database;
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

    awaiting: (limit) =>
      guarded(database, async () => {
        const [total, leads] = await Promise.all([
          awaitingLeads()
            .select((eb) => eb.fn.countAll<number | string>().as('count'))
            .executeTakeFirstOrThrow(),
          awaitingLeads()
            .select([
              'lead.id',
              'lead.created_at',
              'lead.marketing_id',
              'lead.package_key',
              'lead.phone',
            ])
            .orderBy('lead.created_at', 'desc')
            .orderBy('lead.id', 'desc')
            .limit(limit)
            .execute(),
        ]);
        const flags =
          leads.length === 0
            ? []
            : await db
                .selectFrom('lead_flags as flag')
                .leftJoin('registrations as other', 'other.id', 'flag.other_id')
                .select([
                  'flag.registration_id',
                  'flag.flag',
                  'flag.other_id',
                  'other.id as other_found',
                  'other.marketing_id as other_marketing_id',
                ])
                .where(
                  'flag.registration_id',
                  'in',
                  leads.map((lead) => lead.id),
                )
                .execute();
        return {
          count: Number(total.count),
          leads: leads.map((lead) => ({
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
          })),
        };
      }),
  };
}
