import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { skippingLocked } from '../db/dialect';
import type { Database, MailKind, MailStatus, Tables } from '../db/schema';

/** An e-mail as its cause queues it (docs/email.md). */
export interface Mail {
  kind: MailKind;
  to: string;
  /**
   * What makes it one e-mail of its kind: the person and the week, or the lead. A second queue
   * of the same kind and key is a no-op, whatever instance or transaction makes it.
   */
  dedupeKey: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (List-Unsubscribe, …); Feedback-ID and Message-ID are the sender's. */
  headers?: Record<string, string>;
}

/** An e-mail claimed for sending. */
export interface DueMail extends Required<Pick<Mail, 'kind' | 'to' | 'subject' | 'text'>> {
  id: string;
  html: string | undefined;
  headers: Record<string, string>;
  /** The same on every attempt: set by the first claim, kept on the row. */
  messageId: string;
  /** Attempts made before this one. */
  attempts: number;
}

/** What an attempt leaves: the e-mail's next state. */
export interface SettledMail {
  status: MailStatus;
  attempts: number;
  nextAttemptAt: Date;
  sentAt: Date | null;
  lastError: string | null;
}

export interface MailOutboxStatus {
  pending: number;
  failed: number;
  /** The created_at of the oldest pending e-mail, or null when none is pending. */
  oldestPendingAt: string | null;
}

/** The e-mails queued, as the sender sees them. */
export interface MailOutbox {
  /**
   * Up to `limit` pending e-mails that are due, each claimed until `leaseUntil`: another
   * instance skips them until then, and takes them back if this one dies meanwhile. The
   * Message-IDs of e-mails claimed for the first time are `<id@domain>`.
   */
  claim(limit: number, now: Date, leaseUntil: Date, domain: string): Promise<DueMail[]>;
  /** Records an attempt's outcome and ends the claim. */
  settle(id: string, settled: SettledMail): Promise<void>;
  /** Ends claims without an attempt (shutting down): the e-mails are due again at once. */
  release(ids: string[]): Promise<void>;
  status(): Promise<MailOutboxStatus>;
}

/**
 * Queues an e-mail in the caller's transaction, due at once: it is written with what causes
 * it, or neither is. Returns false when one of the same kind and key is queued already (nothing
 * is written then).
 */
export async function queueMail(trx: Kysely<Tables>, mail: Mail, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const queued = await trx
    .insertInto('mail_outbox')
    .values({
      id: randomUUID(),
      kind: mail.kind,
      dedupe_key: mail.dedupeKey,
      recipient: mail.to,
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html ?? null,
      headers: JSON.stringify(mail.headers ?? {}),
      status: 'pending',
      attempts: 0,
      created_at: at,
      next_attempt_at: at,
    })
    .onConflict((conflict) => conflict.columns(['kind', 'dedupe_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return queued !== undefined;
}

export function createMailOutbox(database: Database): MailOutbox {
  const { db } = database;
  return {
    async claim(limit, now, leaseUntil, domain) {
      const at = now.toISOString();
      // Pending, due, and not claimed (or claimed by an instance whose lease has run out).
      const due = db
        .selectFrom('mail_outbox')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', at)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]))
        .orderBy('next_attempt_at')
        .limit(limit);
      // One statement claims and reads, so no other claim comes between the two.
      const claimed = await db
        .updateTable('mail_outbox')
        .set((eb) => ({
          locked_until: leaseUntil.toISOString(),
          message_id: eb.fn.coalesce('message_id', sql<string>`'<' || id || ${`@${domain}>`}`),
        }))
        .where('id', 'in', skippingLocked(database, due))
        .returning([
          'id',
          'kind',
          'recipient',
          'subject',
          'text_body',
          'html_body',
          'headers',
          'message_id',
          'attempts',
        ])
        .execute();
      return claimed.map((row) => ({
        id: row.id,
        kind: row.kind,
        to: row.recipient,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body ?? undefined,
        headers: JSON.parse(row.headers) as Record<string, string>,
        messageId: row.message_id!,
        attempts: row.attempts,
      }));
    },
    async settle(id, settled) {
      await db
        .updateTable('mail_outbox')
        .set({
          status: settled.status,
          attempts: settled.attempts,
          next_attempt_at: settled.nextAttemptAt.toISOString(),
          sent_at: settled.sentAt?.toISOString() ?? null,
          last_error: settled.lastError,
          locked_until: null,
        })
        .where('id', '=', id)
        .execute();
    },
    async release(ids) {
      if (ids.length === 0) return;
      await db
        .updateTable('mail_outbox')
        .set({ locked_until: null })
        .where('id', 'in', ids)
        .execute();
    },
    async status() {
      const rows = await db
        .selectFrom('mail_outbox')
        .select((eb) => [
          'status',
          eb.fn.countAll<number | string>().as('count'),
          eb.fn.min('created_at').as('oldest'),
        ])
        .where('status', 'in', ['pending', 'failed'])
        .groupBy('status')
        .execute();
      const count = (status: MailStatus) =>
        Number(rows.find((row) => row.status === status)?.count ?? 0);
      return {
        pending: count('pending'),
        failed: count('failed'),
        oldestPendingAt: rows.find((row) => row.status === 'pending')?.oldest ?? null,
      };
    },
  };
}
