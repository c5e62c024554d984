import { groupCommit } from '../registrations/group-commit';
import type {
  Database,
  RegistrationsTable,
  WebhookEventStatus,
  WebhookEventType,
} from '../db/schema';

/** An event claimed for delivery, with the registration it carries. */
export interface DueEvent {
  id: string;
  type: WebhookEventType;
  /** Attempts made before this one. */
  attempts: number;
  registration: RegistrationsTable;
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
}

type DueRow = RegistrationsTable & {
  event_id: string;
  event_type: WebhookEventType;
  event_attempts: number;
};

function toDue({ event_id, event_type, event_attempts, ...registration }: DueRow): DueEvent {
  return { id: event_id, type: event_type, attempts: event_attempts, registration };
}

// Pending, due, and not claimed (or claimed by an instance whose lease has run out).
function due(table: string): string {
  return `${table}.status = 'pending' and ${table}.next_attempt_at <= ?
    and (${table}.locked_until is null or ${table}.locked_until <= ?)`;
}
const dueColumns = `e.id as event_id, e.type as event_type, e.attempts as event_attempts, r.*`;
const settle = `update webhook_events set status = ?, attempts = ?, next_attempt_at = ?,
  delivered_at = ?, last_error = ?, locked_until = null where id = ?`;
// The attempts that end together are recorded in one statement (PostgreSQL) or one
// transaction (SQLite), as the sign-ups are: one commit, not one each.
const settleMany = `update webhook_events e set status = v.status, attempts = v.attempts,
    next_attempt_at = v.next_attempt_at, delivered_at = v.delivered_at,
    last_error = v.last_error, locked_until = null
  from unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[])
    as v(status, attempts, next_attempt_at, delivered_at, last_error, id)
  where e.id = v.id`;
type SettleItem = [id: string, settled: Settled];
const release = 'update webhook_events set locked_until = null where id = ?';
const status = `select status, count(*) as count, min(created_at) as oldest
  from webhook_events group by status`;
const retryFailed = `update webhook_events set status = 'pending', attempts = 0,
  next_attempt_at = ?, last_error = null where status = 'failed'`;
// Pending events are on their way already; sending them again now could send them twice.
const replay = `update webhook_events set status = 'pending', attempts = 0, next_attempt_at = ?,
  last_error = null where created_at >= ? and status <> 'pending'`;

interface StatusRow {
  status: WebhookEventStatus;
  count: number | string;
  oldest: string;
}

function toStatus(rows: StatusRow[]): OutboxStatus {
  const count = (status: WebhookEventStatus) =>
    Number(rows.find((row) => row.status === status)?.count ?? 0);
  return {
    pending: count('pending'),
    delivered: count('delivered'),
    failed: count('failed'),
    oldestPendingAt: rows.find((row) => row.status === 'pending')?.oldest ?? null,
  };
}

function settleValues(id: string, settled: Settled) {
  return [
    settled.status,
    settled.attempts,
    settled.nextAttemptAt.toISOString(),
    settled.deliveredAt?.toISOString() ?? null,
    settled.lastError,
    id,
  ];
}

/** `?` placeholders, numbered as PostgreSQL wants them. */
function numbered(text: string): string {
  let index = 0;
  return text.replaceAll('?', () => `$${++index}`);
}

export function createOutbox(database: Database): Outbox {
  if (database.kind === 'sqlite') {
    const { driver } = database;
    // What the outbox writes needs no wait for the disk: a claim lost in a power cut only
    // ends early, an attempt's record lost only means the event is sent again (at least
    // once). The next sign-up's commit, which does wait, syncs these with it. Without this,
    // each claim and each record cost a disk sync on the event loop, and at 200 sign-ups a
    // second the webhooks lagged a second behind.
    const fast =
      <Args extends unknown[], Result>(write: (...args: Args) => Result) =>
      (...args: Args): Result => {
        const synchronous = driver.pragma('synchronous', { simple: true }) as number;
        driver.pragma('synchronous = NORMAL');
        try {
          return write(...args);
        } finally {
          driver.pragma(`synchronous = ${synchronous}`);
        }
      };
    const selectDue = driver.prepare<[string, string, number], DueRow>(
      `select ${dueColumns} from webhook_events e join registrations r on r.id = e.registration_id
       where ${due('e')}
       order by e.next_attempt_at limit ?`,
    );
    const lock = driver.prepare<[string, string]>(
      'update webhook_events set locked_until = ? where id = ?',
    );
    const settleStatement = driver.prepare(settle);
    const settleBatch = driver.transaction((batch: SettleItem[]) => {
      for (const [id, settled] of batch) settleStatement.run(...settleValues(id, settled));
    });
    const settleTogether = groupCommit((batch: SettleItem[]) => {
      fast(settleBatch)(batch);
      return batch.map(() => ({ ok: true, value: undefined }));
    }, 1);
    const releaseStatement = driver.prepare<[string]>(release);
    // IMMEDIATE: `npm run webhooks` in another process must not claim between the two.
    const claim = driver.transaction((limit: number, now: string, leaseUntil: string) => {
      const rows = selectDue.all(now, now, limit);
      for (const row of rows) lock.run(leaseUntil, row.event_id);
      return rows.map(toDue);
    });
    return {
      async claim(limit, now, leaseUntil) {
        return fast(claim.immediate)(limit, now.toISOString(), leaseUntil.toISOString());
      },
      settle: (id, settled) => settleTogether([id, settled]),
      async release(ids) {
        fast(() => ids.forEach((id) => releaseStatement.run(id)))();
      },
      async status() {
        return toStatus(driver.prepare<[], StatusRow>(status).all());
      },
      async retryFailed(now) {
        return driver.prepare(retryFailed).run(now.toISOString()).changes;
      },
      async replay(since, now) {
        return driver.prepare(replay).run(now.toISOString(), since.toISOString()).changes;
      },
    };
  }

  const { driver: pool } = database;
  // One statement claims and reads: SKIP LOCKED lets instances claim side by side, each taking
  // events no other is taking at that moment.
  const claimStatement = numbered(
    `with claimed as (
      update webhook_events set locked_until = ? where id in (
        select id from webhook_events where ${due('webhook_events')}
        order by next_attempt_at limit ? for update skip locked)
      returning id, registration_id, type, attempts)
    select ${dueColumns} from claimed e join registrations r on r.id = e.registration_id`,
  );
  const settleTogether = groupCommit(async (batch: SettleItem[]) => {
    const rows = batch.map(([id, settled]) => settleValues(id, settled));
    const columns = Array.from({ length: 6 }, (_, column) => rows.map((row) => row[column]));
    await pool.query(settleMany, columns);
    return batch.map(() => ({ ok: true as const, value: undefined }));
  }, 1);
  return {
    async claim(limit, now, leaseUntil) {
      const at = now.toISOString();
      const { rows } = await pool.query<DueRow>(claimStatement, [
        leaseUntil.toISOString(),
        at,
        at,
        limit,
      ]);
      return rows.map(toDue);
    },
    settle: (id, settled) => settleTogether([id, settled]),
    async release(ids) {
      await pool.query('update webhook_events set locked_until = null where id = any($1)', [ids]);
    },
    async status() {
      return toStatus((await pool.query<StatusRow>(status)).rows);
    },
    async retryFailed(now) {
      return (await pool.query(numbered(retryFailed), [now.toISOString()])).rowCount ?? 0;
    },
    async replay(since, now) {
      const values = [now.toISOString(), since.toISOString()];
      return (await pool.query(numbered(replay), values)).rowCount ?? 0;
    },
  };
}
