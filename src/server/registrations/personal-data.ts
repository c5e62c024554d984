import { sql, type ExpressionBuilder, type Kysely, type RawBuilder } from 'kysely';
import { idsTable, writeTransaction } from '../db/dialect';
import { countKeys, signUpColumns, storedCounts } from '../counts';
import type {
  Database,
  LeadStatusChangesTable,
  RegistrationsTable,
  Tables,
  WebhookEventsTable,
} from '../db/schema';

// Issue 15 (the PDPL): submissions deleted by age (RETENTION_DAYS) or on a person's request
// (`npm run person -- --erase`), and everything stored about one person.

/**
 * The lock a deletion holds. A change of a lead's status takes it too (leads/lead-statuses.ts):
 * otherwise a change could be written, with its event, for a lead being deleted, after the
 * deletion had read its history, and outlive it.
 */
export const deletionLock = 'personal data deletion';

/** One person's submissions: by phone or by e-mail. */
type Person = { phone: string } | { email: string };

/** Whose submissions: by age (one chunk of them, retentionChunk), or one person's. */
export type Selection = { createdBefore: string } | Person;

/**
 * How many of the submissions past RETENTION_DAYS one deletion takes, oldest first, each with
 * its repeats: a short transaction, so that a large backlog never holds the lock that other
 * writes wait for (a lead's change of status, an erasure) for long, nor meets PostgreSQL's
 * statement time-out. The caller deletes chunk after chunk until none is left.
 */
export const retentionChunk = 2_000;

/**
 * What a deletion removed: the submissions' ids, and how many changes of their status and
 * webhook events went with them.
 */
export interface Deleted {
  ids: string[];
  statusChanges: number;
  webhookEvents: number;
}

/** One submission, its status's history and its webhook events, as the person command prints them. */
export type PersonRow = RegistrationsTable & {
  status_changes: LeadStatusChangesTable[];
  webhook_events: WebhookEventsTable[];
};

type Registrations = ExpressionBuilder<Tables, 'registrations'>;

// The condition on `registrations` for a person: the rows of their phone, or the rows that gave
// their e-mail, and no other: an e-mail typed with someone else's phone must not hand over (or
// erase) that person's rows.
function selected(selection: Person) {
  return (eb: Registrations) => {
    if ('phone' in selection) return eb('phone', '=', selection.phone);
    return eb(eb.fn('lower', ['email']), '=', selection.email.toLowerCase());
  };
}

/**
 * The ids a deletion takes. By age: the oldest retentionChunk past the limit (through the index
 * on created_at and id), each lead with its repeats (at most 24 hours younger), so that no kept
 * row is counted for a link that is no longer there.
 */
async function chosenIds(
  trx: Kysely<Tables>,
  database: Database,
  selection: Selection,
): Promise<string[]> {
  if (!('createdBefore' in selection)) {
    const rows = await trx
      .selectFrom('registrations')
      .select('id')
      .where(selected(selection))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(({ id }) => id);
  }
  const oldest = await trx
    .selectFrom('registrations')
    .select('id')
    .where('created_at', '<', selection.createdBefore)
    .orderBy('created_at')
    .orderBy('id')
    .limit(retentionChunk)
    .execute();
  if (oldest.length === 0) return [];
  const ids = oldest.map(({ id }) => id);
  const repeats = await trx
    .selectFrom('registrations')
    .select('id')
    .where('repeat_of', 'in', idsTable(database, ids))
    .execute();
  return [...new Set([...ids, ...repeats.map(({ id }) => id)])];
}

/**
 * Before `chosen` rows go: each lead among them whose repeats are not all going hands its place
 * to the oldest repeat left, which becomes the lead (repeat_of null) with the others linked to
 * it, so that no kept row points to a deleted one and the repeat rule finds a lead.
 */
async function promoteRepeats(trx: Kysely<Tables>, chosen: RawBuilder<string>): Promise<void> {
  const left = await trx
    .selectFrom('registrations')
    .select(['id', 'repeat_of'])
    .where('repeat_of', 'in', chosen)
    .where('id', 'not in', chosen)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const newLead = new Map<string, string>();
  for (const { id, repeat_of: lead } of left) {
    if (lead === null) continue;
    const promoted = newLead.get(lead);
    if (promoted === undefined) newLead.set(lead, id);
    // A promoted repeat starts as every lead does: the history of its lead goes with that lead.
    await trx
      .updateTable('registrations')
      .set(promoted === undefined ? { repeat_of: null, status: 'new' } : { repeat_of: promoted })
      .where('id', '=', id)
      .execute();
  }
}

/**
 * Deletes the selected submissions (by age: one chunk), the history of their status and every
 * webhook event about either in one transaction, after adding their counts to the daily totals that every count of a
 * lead reads (counts.ts), each for its lead's link and campaign. Deleting what is
 * already gone does nothing; two instances (or the command and a server) deleting at once take
 * turns, so nothing is counted twice.
 */
export async function deleteSubmissions(
  database: Database,
  selection: Selection,
): Promise<Deleted> {
  const deleted = await writeTransaction(
    database,
    [deletionLock],
    async (trx): Promise<Deleted> => {
      const ids = await chosenIds(trx, database, selection);
      if (ids.length === 0) return { ids, statusChanges: 0, webhookEvents: 0 };
      // Read once, then named by id in every statement, each through an index; nothing
      // promoteRepeats changes (the repeats left behind) moves a row in or out.
      const chosen = idsTable(database, ids);
      const rows = trx.selectFrom('registrations').select('id').where('id', 'in', chosen);
      const changes = trx
        .selectFrom('lead_status_changes')
        .select('id')
        .where('registration_id', 'in', chosen);
      // Counted first, as every count of a lead counts them (counts.ts).
      const counted = storedCounts(trx, { since: '', ids: rows, repeats: true }).as('counted');
      await trx
        .insertInto('sign_up_totals')
        .columns([...countKeys, ...signUpColumns])
        .expression(
          trx
            .selectFrom(counted)
            .select((eb) => [
              ...countKeys,
              ...signUpColumns.map((column) => eb.fn.sum<number>(column).as(column)),
            ])
            .groupBy([...countKeys]),
        )
        .onConflict((oc) =>
          oc
            .columns([...countKeys])
            .doUpdateSet((eb) =>
              Object.fromEntries(
                signUpColumns.map((column) => [
                  column,
                  eb(eb.ref(`sign_up_totals.${column}`), '+', eb.ref(`excluded.${column}`)),
                ]),
              ),
            ),
        )
        .execute();
      await promoteRepeats(trx, chosen);
      // One list, not an OR of two: each side is read through its index, not the whole table.
      const events = await trx
        .deleteFrom('webhook_events')
        .where('subject_id', 'in', rows.union(changes))
        .executeTakeFirst();
      const history = await trx
        .deleteFrom('lead_status_changes')
        .where('registration_id', 'in', chosen)
        .executeTakeFirst();
      await trx.deleteFrom('registrations').where('id', 'in', chosen).execute();
      return {
        ids,
        statusChanges: Number(history.numDeletedRows),
        webhookEvents: Number(events.numDeletedRows),
      };
    },
  );
  // SQLite's secure_delete (db/sqlite.ts) has zeroed the rows in their pages; the copies of the
  // pages still in the write-ahead log are dropped with it. Readers in the middle of a read may
  // keep part of it until the next checkpoint, which SQLite runs by itself.
  if (database.kind === 'sqlite' && deleted.ids.length > 0) {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
  }
  return deleted;
}

/**
 * The submissions of a person: of their phone, or that gave their e-mail; no other row. Each
 * with the history of its status and the webhook events about it or its changes.
 */
export async function findPerson(
  database: Database,
  selection: { phone: string } | { email: string },
): Promise<PersonRow[]> {
  // One snapshot for all three, so an event is never without its submission.
  return database.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const rows = await trx
        .selectFrom('registrations')
        .selectAll()
        .where(selected(selection))
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      if (rows.length === 0) return [];
      const ids = rows.map(({ id }) => id);
      const changes = await trx
        .selectFrom('lead_status_changes')
        .selectAll()
        .where('registration_id', 'in', ids)
        .orderBy('changed_at')
        .orderBy('id')
        .execute();
      const events = await trx
        .selectFrom('webhook_events')
        .selectAll()
        .where('subject_id', 'in', [...ids, ...changes.map(({ id }) => id)])
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => {
        const own = changes.filter((change) => change.registration_id === row.id);
        const subjects = new Set([row.id, ...own.map(({ id }) => id)]);
        return {
          ...row,
          status_changes: own,
          webhook_events: events.filter((event) => subjects.has(event.subject_id)),
        };
      });
    });
}
