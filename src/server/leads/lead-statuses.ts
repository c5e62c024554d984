import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { LeadStatus } from '../../domain/lead-status';
import { writeTransaction } from '../db/dialect';
import type { Database, LeadStatusChangesTable, Tables } from '../db/schema';
import { deletionLock } from '../registrations/personal-data';
import { guarded } from '../db/database';
import { registrationIdPattern } from '../registrations/registration-repository';
import { queueEvents } from '../webhooks/outbox';
import type { ClientNotes } from '../mail/client-notes';

/** Which lead: by the id of any of its rows, or a phone's most recent lead. */
export type LeadRef = { id: string } | { phone: string };

export type StatusChange =
  /** The lead's id, its status and when that status was set. */
  | { kind: 'changed' | 'unchanged'; id: string; status: LeadStatus; changedAt: string }
  | { kind: 'not_found' };

/** What became of each lead, as the provider's CRM or a person tells it (docs/marketer-kit.md). */
export interface LeadStatuses {
  /**
   * Sets a lead's status, kept as a change in its history with `by` and, with webhooks on, its
   * event, in one transaction. The same status again changes nothing and answers the time of the
   * last real change (the lead's sign-up while it never changed), so a retry is harmless.
   */
  change(
    lead: LeadRef,
    status: LeadStatus,
    by: LeadStatusChangesTable['changed_by'],
    now: Date,
  ): Promise<StatusChange>;
}

/** The lead's own row: a repeat's id leads to its lead. */
export async function leadOf(trx: Kysely<Tables>, lead: LeadRef) {
  const columns = ['id', 'status', 'status_changed_at', 'created_at'] as const;
  if ('phone' in lead) {
    return trx
      .selectFrom('registrations')
      .select(columns)
      .where('phone', '=', lead.phone)
      .where('repeat_of', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }
  if (!registrationIdPattern.test(lead.id)) return undefined;
  const row = await trx
    .selectFrom('registrations')
    .select(['id', 'repeat_of'])
    .where('id', '=', lead.id)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return trx
    .selectFrom('registrations')
    .select(columns)
    .where('id', '=', row.repeat_of ?? row.id)
    .executeTakeFirst();
}

export function createLeadStatuses(
  database: Database,
  /** Set with e-mail on: a lead that becomes a client is its marketer's note (mail/client-notes.ts). */
  clientNotes?: ClientNotes,
): LeadStatuses {
  return {
    change: (lead, status, by, now) =>
      guarded(database, async () => {
        // Composed before the transaction, which holds SQLite's one writer: only queued in it.
        const found =
          clientNotes === undefined || status !== 'client'
            ? undefined
            : await leadOf(database.db, lead);
        // A retry of the same status changes nothing, and composes nothing.
        const prepared =
          found === undefined || found.status === status
            ? undefined
            : await clientNotes!.prepare(database.db, found.id, now);
        return writeTransaction(database, [deletionLock], async (trx): Promise<StatusChange> => {
          const row = await leadOf(trx, lead);
          if (row === undefined || row.status === null) return { kind: 'not_found' };
          if (row.status === status) {
            return {
              kind: 'unchanged',
              id: row.id,
              status,
              changedAt: row.status_changed_at ?? row.created_at,
            };
          }
          const changedAt = now.toISOString();
          const change = {
            id: randomUUID(),
            registration_id: row.id,
            status,
            previous_status: row.status,
            changed_at: changedAt,
            changed_by: by,
          };
          await trx.insertInto('lead_status_changes').values(change).execute();
          await trx
            .updateTable('registrations')
            .set({ status, status_changed_at: changedAt })
            .where('id', '=', row.id)
            .execute();
          // Queued whoever changes it, the API or `npm run lead` from any shell: a server
          // without WEBHOOK_URL fails what it cannot deliver (plugins/webhooks.ts).
          await queueEvents(trx, [
            { subjectId: change.id, type: 'registration.status_changed', at: changedAt },
          ]);
          if (status === 'client') await clientNotes?.queue(trx, row.id, now, prepared);
          return { kind: 'changed', id: row.id, status, changedAt };
        });
      }),
  };
}
