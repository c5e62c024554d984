import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { LeadStatus } from '../../domain/lead-status';
import { parseNotes, type Source } from '../../domain/notes';
import { utmOf, type Registration, type Utm } from '../../domain/registration';
import { guarded } from '../db/database';
import { insertAll, textTable, writeTransaction } from '../db/dialect';
import type { Database, RegistrationsTable, SignUpChannel, Tables } from '../db/schema';
import { eventRows, queueEvents } from '../webhooks/outbox';
import { groupCommit, type ItemResult } from '../db/group-commit';
import { dropExpiredChallenges, spendChallenges, type SolvedChallenge } from './proof-of-work';
import {
  createFlagChecks,
  defaultFlagSettings,
  type CheckedLead,
  type FlagChecks,
  type FlagSettings,
} from './flags';

/** A repeat is a submission of the same phone and notes as a lead of the 24 hours before it. */
const repeatWindowMs = 24 * 60 * 60 * 1000;

export interface StoredRegistration {
  id: string;
  createdAt: string;
  name: string;
  email: string | null;
  phone: string;
  notes: string;
  marketingId: string | null;
  packageKey: string | null;
  source: Source | null;
  /** The lead's id when this is a repeat (same phone and notes within 24 hours). */
  repeatOf: string | null;
  /** The campaign parameters the sign-up came with: only those present. */
  utm: Utm;
  consent: Consent;
  /** What became of the lead; null on a repeat (its lead's status is the one). */
  status: LeadStatus | null;
  /** When the status last changed; null while it never has. */
  statusChangedAt: string | null;
}

/**
 * The consent's evidence: the privacy notice the form linked when the submission came ('' for
 * none) and how it came ('' on rows stored before it was kept). Its time is the submission's.
 * `attested`: the version is the one the submission said its page showed; otherwise it sent
 * none, and the version is the server's when it came.
 */
export interface Consent {
  privacyUrl: string;
  privacyVersion: string;
  channel: SignUpChannel | '';
  attested: boolean;
}

/** The privacy notice the form links (PRIVACY_URL, PRIVACY_VERSION); unset: none. */
export interface PrivacyNotice {
  url: string | undefined;
  version: string | undefined;
}

/** What the server knows of a sign-up besides its fields, for the flags (docs/flags.md). */
export interface SignUpEvidence {
  /** Its address (IPv6: its /48) hashed as the visits' address_hash is; '' when unknown. */
  addressHash: string;
  /** When the server served its form, as the form's stamp says; null without a valid one. */
  servedAt: Date | null;
}

export interface Registered {
  /** The lead's id: the new submission's own, or for a repeat its lead's. */
  id: string;
  repeat: boolean;
}

/** The one way to the registrations, whichever database DATABASE_URL names. */
export interface RegistrationRepository {
  /**
   * Stores a sign-up. When the same phone sent the same notes in the last 24 hours it is a
   * repeat: stored too, linked to that lead (which keeps the marketer's credit), and the
   * lead's id is returned. It records the privacy notice of the repository's options (the
   * version the sign-up says its page showed, when it says one) and the channel it came by.
   * A solved proof-of-work challenge is spent with it; one spent before throws
   * ChallengeSpentError, and nothing is stored. A lead is checked for doubtful credit, and its
   * flags stored with it (docs/flags.md).
   */
  register(
    input: Registration,
    now: Date,
    channel: SignUpChannel,
    context?: { challenge?: SolvedChallenge; evidence?: SignUpEvidence },
  ): Promise<Registered>;
  /** Every stored registration, oldest first, optionally only those from `since` on. */
  list(options?: { since?: Date }): Promise<StoredRegistration[]>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /** How long the oldest sign-up waiting for its commit has waited, in ms (load shedding). */
  waitingMs(): number;
}

export interface RepositoryOptions {
  /**
   * Webhooks are on: each stored submission also writes its webhook event, in the same
   * transaction (docs/webhooks.md).
   */
  webhookEvents?: boolean;
  /** The notice each submission records as shown; by default none. */
  privacyNotice?: PrivacyNotice;
  /** Hears of each group commit: how many sign-ups, how long (the metrics). */
  observeBatch?: (size: number, seconds: number) => void;
  /** Hears of each call that found the database out of reach (the metrics). */
  onUnavailable?: () => void;
  /** The thresholds of the flags; by default the settings' defaults. */
  flagSettings?: FlagSettings;
}

// What a sign-up brings; the repeat rule works out repeat_of, and with it whether it has a status.
type SentRow = Omit<RegistrationsTable, 'repeat_of' | 'status' | 'status_changed_at'>;
interface Sent {
  row: SentRow;
  challenge: SolvedChallenge | undefined;
}

/** The sign-up's proof-of-work challenge was spent by another sign-up before it. */
export class ChallengeSpentError extends Error {
  constructor() {
    super('the proof-of-work challenge was spent before');
  }
}

// Rows a statement, at most: SQLite takes up to 32,766 values (23 a row), PostgreSQL 65,535
// (with their events and at most five flags, 45 a row).
const rowsPerInsert = 500;

/** A batch of sign-ups in one transaction: each stored, or refused for a spent challenge. */
async function storeSignUps(
  trx: Kysely<Tables>,
  sent: Sent[],
  webhookEvents: boolean,
  flagChecks: FlagChecks,
): Promise<ItemResult<Registered>[]> {
  // Spent in this transaction: two sign-ups with one challenge, on any instance, cannot both be
  // stored, and spending costs the batch one statement rather than a commit of its own.
  const spendable = await spendChallenges(
    trx,
    sent.flatMap(({ challenge }) => challenge ?? []),
  );
  const batch = sent.flatMap(({ row, challenge }) =>
    challenge === undefined || spendable.delete(challenge.signature) ? [row] : [],
  );
  const rows = batch.length === 0 ? [] : await storeRows(trx, batch, webhookEvents, flagChecks);
  const stored = new Map(
    rows.map((row) => [row.id, { id: row.repeat_of ?? row.id, repeat: row.repeat_of !== null }]),
  );
  return sent.map(({ row }) => {
    const value = stored.get(row.id);
    return value === undefined
      ? { ok: false, error: new ChallengeSpentError() }
      : { ok: true, value };
  });
}

/**
 * The repeat rule, the flags and the webhook events, for a batch of sign-ups in one
 * transaction that holds the lock of each phone (so the leads read here are every lead
 * committed). Each row is a repeat of the oldest lead of its phone and notes in the 24 hours
 * before it, a lead stored earlier in the batch included; otherwise it is a lead itself, checked
 * for flags against its phone's earlier leads.
 */
async function storeRows(
  trx: Kysely<Tables>,
  batch: SentRow[],
  webhookEvents: boolean,
  flagChecks: FlagChecks,
): Promise<RegistrationsTable[]> {
  const windowStart = (row: Pick<SentRow, 'created_at'>) =>
    new Date(Date.parse(row.created_at) - repeatWindowMs).toISOString();
  // Each sign-up's stored lead of its phone and notes (the oldest in its window), and its
  // phone's earliest stored lead of another marketer (contested): two subqueries a row, each
  // looked up through the (phone, notes, created_at) index. A join on the phone alone let
  // PostgreSQL, before it has statistics, read every lead through another index.
  const sent = textTable(
    trx,
    ['id', 'phone', 'notes', 'marketing_id', 'since', 'contested_since'],
    batch.map((row) => [
      row.id,
      row.phone,
      row.notes,
      row.marketing_id ?? '',
      windowStart(row),
      flagChecks.contestedSince(row.created_at),
    ]),
  ).as('sent');
  const found = await trx
    .selectFrom(sent)
    .select((eb) => [
      'sent.id',
      eb
        .selectFrom('registrations as lead')
        .select('lead.id')
        .whereRef('lead.phone', '=', 'sent.phone')
        .whereRef('lead.notes', '=', 'sent.notes')
        .where('lead.repeat_of', 'is', null)
        .whereRef('lead.created_at', '>', 'sent.since')
        .orderBy('lead.created_at')
        .limit(1)
        .as('lead_id'),
      flagChecks
        .storedContestedQuery(
          trx,
          eb.ref('sent.phone'),
          eb.ref('sent.marketing_id'),
          eb.ref('sent.contested_since'),
        )
        .as('contested_id'),
    ])
    .execute();
  const stored = new Map(found.map((row) => [row.id, row]));
  // The leads stored earlier in the batch, by phone.
  const batchLeads = new Map<string, SentRow[]>();
  const checked: CheckedLead[] = [];
  const rows: RegistrationsTable[] = batch.map((row) => {
    const { lead_id: storedLead = null, contested_id: storedContested = null } =
      stored.get(row.id) ?? {};
    const earlierInBatch = batchLeads.get(row.phone) ?? [];
    const lead =
      storedLead ??
      earlierInBatch.find((l) => l.notes === row.notes && l.created_at > windowStart(row))?.id ??
      null;
    if (lead === null) {
      checked.push({ row, storedContested, earlierInBatch });
      batchLeads.set(row.phone, [...earlierInBatch, row]);
    }
    // Every lead starts new; a repeat's status is its lead's.
    return {
      ...row,
      repeat_of: lead,
      status: lead === null ? 'new' : null,
      status_changed_at: null,
    };
  });
  const { flags, stored: flaggedLater } = await flagChecks.flagLeads(trx, checked);
  // The start of a burst, flagged now (their days marked changed by lead_flags' trigger): the
  // CRM had their events without the flag.
  if (flaggedLater.length > 0 && webhookEvents) {
    await queueEvents(
      trx,
      flaggedLater.map((lead) => ({
        subjectId: lead.id,
        type: 'registration.flagged',
        at: batch[0]!.created_at,
      })),
    );
  }
  const events = webhookEvents
    ? eventRows(
        rows.map((row) => ({
          subjectId: row.id,
          type: row.repeat_of === null ? 'registration.created' : 'registration.repeated',
          at: row.created_at,
        })),
      )
    : [];
  for (let start = 0; start < rows.length; start += rowsPerInsert) {
    const end = start + rowsPerInsert;
    const chunk = new Set(rows.slice(start, end).map((row) => row.id));
    const flagsOf = flags.filter((row) => chunk.has(row.registration_id));
    await insertAll(trx, [
      trx.insertInto('registrations').values(rows.slice(start, end)),
      ...(webhookEvents ? [trx.insertInto('webhook_events').values(events.slice(start, end))] : []),
      ...(flagsOf.length > 0 ? [trx.insertInto('lead_flags').values(flagsOf)] : []),
    ]);
  }
  return rows;
}

/** A stored row as the code reads it (the export, `npm run person`): camelCase names. */
export function toStored(row: RegistrationsTable): StoredRegistration {
  return {
    id: row.id,
    createdAt: row.created_at,
    name: row.name,
    email: row.email,
    phone: row.phone,
    notes: row.notes,
    marketingId: row.marketing_id,
    packageKey: row.package_key,
    source: row.source as Source | null,
    repeatOf: row.repeat_of,
    utm: utmOf(row),
    consent: {
      privacyUrl: row.privacy_url,
      privacyVersion: row.privacy_version,
      channel: row.channel,
      attested: row.privacy_attested === 1,
    },
    status: row.status,
    statusChangedAt: row.status_changed_at,
  };
}

/**
 * The shape of a submission's id (randomUUID, lowercase): an id from outside is checked against
 * it before any query, as PostgreSQL refuses some text (a NUL byte) with an error, not a miss.
 */
export const registrationIdPattern =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function createRegistrationRepository(
  database: Database,
  {
    webhookEvents = false,
    privacyNotice = { url: undefined, version: undefined },
    observeBatch,
    onUnavailable,
    flagSettings = defaultFlagSettings,
  }: RepositoryOptions = {},
): RegistrationRepository {
  const { db } = database;
  const flagChecks = createFlagChecks(flagSettings);
  let challengesDroppedAt = 0;
  const write = (batch: Sent[]) =>
    writeTransaction(
      database,
      // Per phone, not per phone and notes: the contested check reads the phone's leads of
      // every notes, and two instances storing one phone through two links must take turns.
      batch.map(({ row }) => `sign-up ${row.phone}`),
      async (trx) => {
        if (batch.some(({ challenge }) => challenge) && Date.now() - challengesDroppedAt > 60_000) {
          challengesDroppedAt = Date.now();
          await dropExpiredChallenges(trx, new Date());
        }
        return storeSignUps(trx, batch, webhookEvents, flagChecks);
      },
    );
  // A batch fails as a whole. When the database is not out of reach, the fault may be one
  // sign-up's (a value the database refuses): each is then tried alone, to fail only itself.
  async function writeEachAlone(batch: Sent[]): Promise<ItemResult<Registered>[]> {
    try {
      return await write(batch);
    } catch (error) {
      if (batch.length === 1 || database.isUnavailable(error)) throw error;
      const results: ItemResult<Registered>[] = [];
      for (const item of batch) {
        results.push(
          await write([item]).then(
            ([result]) => result!,
            (itemError: unknown) => ({ ok: false as const, error: itemError }),
          ),
        );
      }
      return results;
    }
  }
  // Group commit (docs/performance.md): sign-ups that arrive together share one transaction.
  const register = groupCommit(writeEachAlone, database.writers, observeBatch);
  const guard = <T>(run: () => Promise<T>) => guarded(database, run, onUnavailable);

  return {
    register: (input, now, channel, { challenge, evidence } = {}) =>
      guard(() => {
        const { packageKey, source } = parseNotes(input.notes);
        const row: SentRow = {
          id: randomUUID(),
          created_at: now.toISOString(),
          name: input.name,
          email: input.email || null,
          phone: input.phone,
          notes: input.notes,
          marketing_id: input.marketing_id ?? null,
          package_key: packageKey,
          source,
          utm_source: input.utm_source ?? null,
          utm_medium: input.utm_medium ?? null,
          utm_campaign: input.utm_campaign ?? null,
          utm_term: input.utm_term ?? null,
          utm_content: input.utm_content ?? null,
          privacy_url: privacyNotice.url ?? '',
          privacy_version: input.privacy_version ?? privacyNotice.version ?? '',
          channel,
          privacy_attested: input.privacy_version === undefined ? 0 : 1,
          address_hash: evidence?.addressHash ?? '',
          served_at: evidence?.servedAt?.toISOString() ?? null,
        };
        return register({ row, challenge });
      }),
    list: ({ since } = {}) =>
      guard(async () => {
        const rows = await db
          .selectFrom('registrations')
          .selectAll()
          .where('created_at', '>=', since?.toISOString() ?? '')
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        return rows.map(toStored);
      }),
    waitingMs: register.waitingMs,
    ping: () =>
      guard(async () => {
        await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
      }),
  };
}
