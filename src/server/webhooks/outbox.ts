import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely, UpdateQueryBuilder, UpdateResult } from 'kysely';
import { packageLabel } from '../../domain/packages';
import { utmOf } from '../../domain/registration';
import { skippingLocked, writeTransaction } from '../db/dialect';
import type {
  Database,
  Tables,
  WebhookEventStatus,
  WebhookEventType,
  WebhookEventsTable,
} from '../db/schema';
import { groupCommit } from '../db/group-commit';
import { flagNames } from '../leads/flag-names';

/** An event claimed for delivery, with the body it is sent with. */
export interface DueEvent {
  id: string;
  type: WebhookEventType;
  /** Attempts made before this one. */
  attempts: number;
  /** When what it is about happened (its lag is counted from it). */
  createdAt: string;
  /** The body of a delivery (docs/webhooks.md). */
  payload: { type: WebhookEventType; timestamp: string; data: Record<string, unknown> };
}

/** What an attempt leaves: the event's next state. */
export interface Settled {
  status: WebhookEventStatus;
  attempts: number;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  lastError: string | null;
}

export interface OutboxStatus {
  pending: number;
  delivered: number;
  failed: number;
  /** The created_at of the oldest pending event, or null when none is pending. */
  oldestPendingAt: string | null;
}

/** The webhook events, as the delivery and `npm run webhooks` see them. */
export interface Outbox {
  /**
   * Up to `limit` pending events that are due, each claimed until `leaseUntil`: another
   * instance skips them until then, and takes them back if this one dies meanwhile.
   */
  claim(limit: number, now: Date, leaseUntil: Date): Promise<DueEvent[]>;
  /** Records an attempt's outcome and ends the claim. */
  settle(id: string, settled: Settled): Promise<void>;
  /** Ends claims without an attempt (shutting down): the events are due again at once. */
  release(ids: string[]): Promise<void>;
  status(): Promise<OutboxStatus>;
  /** Failed events become pending again, with their attempts counted anew; returns how many. */
  retryFailed(now: Date): Promise<number>;
  /** Delivered and failed events created from `since` on are sent again; returns how many. */
  replay(since: Date, now: Date): Promise<number>;
  /**
   * Pending events become failed, `reason` their last error: what a server without WEBHOOK_URL
   * does with the events it will never deliver. Returns how many.
   */
  failPending(reason: string, now: Date): Promise<number>;
}

/**
 * An event's id: Standard Webhooks' `webhook-id`, the same on every attempt. It begins with the
 * time (milliseconds, hex), so that each new event is appended to the outbox's key index: with
 * wholly random ids each event wrote into a random page of it, which cost about 40 % of the
 * sign-ups per second (docs/performance.md). The rest is random, as a v4 UUID's.
 */
export function newEventId(): string {
  const time = Date.now().toString(16).padStart(12, '0');
  return `msg_${time}${randomUUID().replaceAll('-', '').slice(time.length)}`;
}

// Rows a statement, at most: SQLite takes up to 32,766 values.
const rowsPerInsert = 500;

type QueuedEvent = { subjectId: string; type: WebhookEventType; at: string };

/** The rows of one event about each subject, due at once: what queueEvents writes. */
export function eventRows(events: QueuedEvent[]): Insertable<WebhookEventsTable>[] {
  return events.map(({ subjectId, type, at }) => ({
    id: newEventId(),
    subject_id: subjectId,
    type,
    status: 'pending',
    attempts: 0,
    created_at: at,
    next_attempt_at: at,
  }));
}

/**
 * Queues one event about each subject, due at once, in the caller's transaction: the event is
 * written with what it is about, or neither is.
 */
export async function queueEvents(trx: Kysely<Tables>, events: QueuedEvent[]): Promise<void> {
  const rows = eventRows(events);
  for (let start = 0; start < rows.length; start += rowsPerInsert) {
    await trx
      .insertInto('webhook_events')
      .values(rows.slice(start, start + rowsPerInsert))
      .execute();
  }
}

/** Each subject's `data`, by its id; a subject that is gone is missing. */
type SubjectReader = (
  db: Kysely<Tables>,
  ids: string[],
) => Promise<Map<string, Record<string, unknown>>>;

const readRegistrations: SubjectReader = async (db, ids) => {
  const rows = await db.selectFrom('registrations').selectAll().where('id', 'in', ids).execute();
  const flags = await flagNames(db, { ids });
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        created_at: row.created_at,
        name: row.name,
        email: row.email,
        phone: row.phone,
        notes: row.notes,
        marketing_id: row.marketing_id,
        package_key: row.package_key,
        package_label: row.package_key === null ? null : packageLabel(row.package_key),
        source: row.source,
        repeat_of: row.repeat_of,
        utm: utmOf(row),
        consent: {
          privacy_url: row.privacy_url,
          privacy_version: row.privacy_version,
          channel: row.channel,
          privacy_attested: row.privacy_attested === 1,
        },
        flags: flags.get(row.id) ?? [],
      },
    ]),
  );
};

// A change of a lead's status, as it was made: not the lead's status when it is delivered. No
// personal data: the receiver has the lead from its registration.created event.
const readStatusChanges: SubjectReader = async (db, ids) => {
  const rows = await db
    .selectFrom('lead_status_changes')
    .select(['id', 'registration_id', 'status', 'previous_status', 'changed_at'])
    .where('id', 'in', ids)
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.registration_id,
        status: row.status,
        previous_status: row.previous_status,
        changed_at: row.changed_at,
      },
    ]),
  );
};

// A decision on a lead's credit, as it was made, with the lead's flags. No personal data: not
// the note (free text) nor who decided.
const readReviews: SubjectReader = async (db, ids) => {
  const rows = await db
    .selectFrom('lead_reviews')
    .select(['id', 'registration_id', 'credited', 'reviewed_at'])
    .where('id', 'in', ids)
    .execute();
  const flags = await flagNames(db, { ids: rows.map((row) => row.registration_id) });
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.registration_id,
        credited: row.credited === 1,
        reviewed_at: row.reviewed_at,
        flags: flags.get(row.registration_id) ?? [],
      },
    ]),
  );
};

// A lead flagged after it was stored (the start of a burst), with its flags as they are: no
// personal data, the receiver has the lead from its registration.created event.
const readFlagged: SubjectReader = async (db, ids) => {
  const rows = await db.selectFrom('registrations').select('id').where('id', 'in', ids).execute();
  const flags = await flagNames(db, { ids: rows.map((row) => row.id) });
  return new Map(rows.map((row) => [row.id, { id: row.id, flags: flags.get(row.id) ?? [] }]));
};

/** What each type of event is about, read when it is delivered (never copied into the event). */
const subjectReaders: Record<WebhookEventType, SubjectReader> = {
  'registration.created': readRegistrations,
  'registration.repeated': readRegistrations,
  'registration.status_changed': readStatusChanges,
  'registration.reviewed': readReviews,
  'registration.flagged': readFlagged,
};

type SettleItem = [id: string, settled: Settled];

export function createOutbox(database: Database): Outbox {
  const { db } = database;

  // The attempts that end together are recorded in one transaction, as the sign-ups are: one
  // commit, not one each.
  const settleTogether = groupCommit(async (batch: SettleItem[]) => {
    // Attempts that ended alike are one update: the deliveries of a poll, most of all, whose
    // times differ by milliseconds and are recorded as the latest of them.
    const alike = new Map<string, { settled: Settled; ids: string[] }>();
    for (const [id, settled] of batch) {
      const { status, attempts, lastError, nextAttemptAt } = settled;
      const key = JSON.stringify([
        status,
        attempts,
        lastError,
        status === 'delivered' ? 0 : nextAttemptAt,
      ]);
      const group = alike.get(key) ?? { settled, ids: [] };
      if (settled.nextAttemptAt > group.settled.nextAttemptAt) group.settled = settled;
      group.ids.push(id);
      alike.set(key, group);
    }
    await writeTransaction(database, [], async (trx) => {
      for (const { settled, ids } of alike.values()) {
        await trx
          .updateTable('webhook_events')
          .set({
            status: settled.status,
            attempts: settled.attempts,
            next_attempt_at: settled.nextAttemptAt.toISOString(),
            delivered_at: settled.deliveredAt?.toISOString() ?? null,
            last_error: settled.lastError,
            locked_until: null,
          })
          .where('id', 'in', ids)
          .execute();
      }
    });
    return batch.map(() => ({ ok: true as const, value: undefined }));
  }, 1);

  async function withPayloads(
    claimed: Pick<
      Tables['webhook_events'],
      'id' | 'subject_id' | 'type' | 'attempts' | 'created_at'
    >[],
    now: Date,
  ): Promise<DueEvent[]> {
    const subjects = new Map<string, Record<string, unknown>>();
    for (const reader of new Set(claimed.map(({ type }) => subjectReaders[type]))) {
      const ids = claimed.filter(({ type }) => subjectReaders[type] === reader);
      for (const [id, data] of await reader(
        db,
        ids.map(({ subject_id }) => subject_id),
      )) {
        subjects.set(id, data);
      }
    }
    const due: DueEvent[] = [];
    for (const event of claimed) {
      const data = subjects.get(event.subject_id);
      if (data === undefined) {
        // Its subject was erased after the claim: there is nothing left to send.
        await settleTogether([
          event.id,
          {
            status: 'failed',
            attempts: event.attempts,
            nextAttemptAt: now,
            deliveredAt: null,
            lastError: 'its subject is gone',
          },
        ]);
        continue;
      }
      due.push({
        id: event.id,
        type: event.type,
        attempts: event.attempts,
        createdAt: event.created_at,
        payload: { type: event.type, timestamp: event.created_at, data },
      });
    }
    return due;
  }

  /** The chosen events are due again at `now`, their attempts counted anew; returns how many. */
  async function sendAgain(
    now: Date,
    chosen: (
      query: UpdateQueryBuilder<Tables, 'webhook_events', 'webhook_events', UpdateResult>,
    ) => UpdateQueryBuilder<Tables, 'webhook_events', 'webhook_events', UpdateResult>,
  ): Promise<number> {
    const result = await chosen(
      db.updateTable('webhook_events').set({
        status: 'pending',
        attempts: 0,
        next_attempt_at: now.toISOString(),
        last_error: null,
      }),
    ).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  return {
    async claim(limit, now, leaseUntil) {
      const at = now.toISOString();
      // Pending, due, and not claimed (or claimed by an instance whose lease has run out).
      const due = db
        .selectFrom('webhook_events')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', at)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]))
        .orderBy('next_attempt_at')
        .limit(limit);
      // One statement claims and reads, so no other claim comes between the two.
      const claimed = await db
        .updateTable('webhook_events')
        .set({ locked_until: leaseUntil.toISOString() })
        .where('id', 'in', skippingLocked(database, due))
        .returning(['id', 'subject_id', 'type', 'attempts', 'created_at'])
        .execute();
      claimed.sort((a, b) =>
        a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0,
      );
      return withPayloads(claimed, now);
    },
    settle: (id, settled) => settleTogether([id, settled]),
    async release(ids) {
      if (ids.length === 0) return;
      await db
        .updateTable('webhook_events')
        .set({ locked_until: null })
        .where('id', 'in', ids)
        .execute();
    },
    async status() {
      const rows = await db
        .selectFrom('webhook_events')
        .select((eb) => [
          'status',
          eb.fn.countAll<number | string>().as('count'),
          eb.fn.min('created_at').as('oldest'),
        ])
        .groupBy('status')
        .execute();
      const count = (status: WebhookEventStatus) =>
        Number(rows.find((row) => row.status === status)?.count ?? 0);
      return {
        pending: count('pending'),
        delivered: count('delivered'),
        failed: count('failed'),
        oldestPendingAt: rows.find((row) => row.status === 'pending')?.oldest ?? null,
      };
    },
    retryFailed: (now) => sendAgain(now, (query) => query.where('status', '=', 'failed')),
    async failPending(reason, now) {
      // Read first: most starts find nothing, and a write would wait for a lock held elsewhere.
      const pending = await db
        .selectFrom('webhook_events')
        .select('id')
        .where('status', '=', 'pending')
        .limit(1)
        .executeTakeFirst();
      if (pending === undefined) return 0;
      const result = await db
        .updateTable('webhook_events')
        .set({ status: 'failed', last_error: reason, next_attempt_at: now.toISOString() })
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    // Pending events are on their way already; sending them again now could send them twice.
    replay: (since, now) =>
      sendAgain(now, (query) =>
        query.where('created_at', '>=', since.toISOString()).where('status', '<>', 'pending'),
      ),
  };
}
