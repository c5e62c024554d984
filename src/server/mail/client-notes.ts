import type { Kysely } from 'kysely';
import { composeClient } from '../../mail/compose';
import { notCredited } from '../counts';
import type { Tables } from '../db/schema';
import type { MailLinks } from './mail-links';
import { queueMail, type Mail } from './mail-outbox';
import { subscribersWanting, unsubscribeHeaders, type Subscriber } from './subscribers';

// A note to a marketer when one of their leads becomes a client (docs/notifications.md): the
// package and the day, never the prospect. Queued in the status change's transaction, so that
// it is written with the change or not at all; the sender sends it (a relay down never slows
// the change).

/** Who a lead's note would go to, and what it says; undefined when none would be sent. */
interface Note {
  leadId: string;
  subscriber: Subscriber;
  packageKey: string | null;
}

/**
 * The note a lead's becoming a client would send now: its marketer wants client notes at a
 * confirmed address, and the lead's latest decision is not "not credited".
 */
async function noteOf(db: Kysely<Tables>, leadId: string): Promise<Note | undefined> {
  const lead = await db
    .selectFrom('registrations')
    .select(['marketing_id', 'package_key'])
    .where('id', '=', leadId)
    .executeTakeFirst();
  if (lead?.marketing_id == null) return undefined;
  const [subscriber] = await subscribersWanting(db, 'client_alerts', [lead.marketing_id]);
  if (subscriber === undefined) return undefined;
  const refused = await notCredited(db)
    .where('review.registration_id', '=', leadId)
    .executeTakeFirst();
  if (refused !== undefined) return undefined;
  return { leadId, subscriber, packageKey: lead.package_key };
}

async function composed(links: MailLinks, note: Note, now: Date): Promise<Mail> {
  const { subscriber } = note;
  const unsubscribeUrl = links.unsubscribe('client', subscriber.unsubscribe_token);
  const words = await composeClient(
    {
      packageKey: note.packageKey,
      day: now.toISOString().slice(0, 10),
      pageUrl: links.myLink,
      unsubscribeUrl,
    },
    links.brand,
  );
  return {
    kind: 'client',
    to: subscriber.email,
    dedupeKey: `${subscriber.subject}:${note.leadId}`,
    ...words,
    headers: unsubscribeHeaders(links, 'client', subscriber.unsubscribe_token),
  };
}

/** A note composed ahead of the change's transaction, so that no lock is held while it is. */
export interface PreparedNote {
  note: Note;
  mail: Mail;
}

export interface ClientNotes {
  /**
   * Composes, before the transaction, the note a lead's becoming a client would queue; read on
   * the database's connection, outside the transaction.
   */
  prepare(db: Kysely<Tables>, leadId: string, now: Date): Promise<PreparedNote | undefined>;
  /**
   * In the change's transaction: queues the note if one is due as of now (the prepared one when
   * it still is the one, else composed anew); whether one was queued.
   */
  queue(
    trx: Kysely<Tables>,
    leadId: string,
    now: Date,
    prepared: PreparedNote | undefined,
  ): Promise<boolean>;
}

export function createClientNotes(links: MailLinks): ClientNotes {
  return {
    async prepare(db, leadId, now) {
      const note = await noteOf(db, leadId);
      return note === undefined ? undefined : { note, mail: await composed(links, note, now) };
    },
    async queue(trx, leadId, now, prepared) {
      const note = await noteOf(trx, leadId);
      if (note === undefined) return false;
      // Prepared with the same clock: the same note still due is the same e-mail.
      const same = prepared !== undefined && JSON.stringify(prepared.note) === JSON.stringify(note);
      return queueMail(trx, same ? prepared.mail : await composed(links, note, now), now);
    },
  };
}
