import { randomUUID } from 'node:crypto';
import { parseNotes, type Source } from '../../domain/notes';
import { utmFields, type Registration, type Utm, type UtmField } from '../../domain/registration';
import { DatabaseUnavailableError } from '../db/database';
import {
  registrationColumns,
  type Database,
  type PostgresDatabase,
  type RegistrationsTable,
  type SqliteDatabase,
} from '../db/schema';
import { groupCommit, type ItemResult } from './group-commit';

const duplicateWindowMs = 24 * 60 * 60 * 1000;

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
  /** The first row's id when this is a repeat (same phone and notes within 24 hours). */
  repeatOf: string | null;
  /** The campaign parameters the sign-up came with: only those present. */
  utm: Utm;
}

/**
 * What one link brought: a marketer (or none) and a package (or the free trial). Leads are first
 * rows; repeats count for the link of the first row they repeat (first-touch credit).
 */
export interface LinkSignUps {
  marketingId: string | null;
  packageKey: string | null;
  leads: number;
  repeats: number;
}

/** What one campaign brought: a utm_source and a utm_campaign, either null for none. */
export interface CampaignSignUps {
  utmSource: string | null;
  utmCampaign: string | null;
  leads: number;
  repeats: number;
}

/** One marketer's leads on one UTC day (YYYY-MM-DD), for one package (null: the free trial). */
export interface DayLeads {
  day: string;
  packageKey: string | null;
  leads: number;
}

export interface Registered {
  /** The first row's id: the new row's own, or for a repeat the one it repeats. */
  id: string;
  repeat: boolean;
}

/** The one way to the registrations, whichever database DATABASE_URL names. */
export interface RegistrationRepository {
  /**
   * Stores a sign-up. When the same phone sent the same notes in the last 24 hours it is a
   * repeat: stored too, linked to that first row (which keeps the marketer's credit), and the
   * first row's id is returned.
   */
  register(input: Registration, now: Date): Promise<Registered>;
  /** Every stored registration, oldest first, optionally only those from `since` on. */
  list(options?: { since?: Date }): Promise<StoredRegistration[]>;
  /** Leads and repeats per marketer and package, optionally only from `since` on (the report). */
  countByLink(options?: { since?: Date }): Promise<LinkSignUps[]>;
  /** Leads and repeats per utm_source and utm_campaign, the lead's (the report's --by campaign). */
  countByCampaign(options?: { since?: Date }): Promise<CampaignSignUps[]>;
  /** The leads credited to one marketer per day and package, from `since` on (their numbers). */
  marketerLeadDays(marketingId: string, since: Date): Promise<DayLeads[]>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface RepositoryOptions {
  /**
   * Webhooks are on: each stored submission also writes its webhook event, in the same
   * transaction (docs/webhooks.md).
   */
  webhookEvents?: boolean;
  /** Hears of each group commit: how many sign-ups, how long (the metrics). */
  observeBatch?: (size: number, seconds: number) => void;
  /** Hears of each call that found the database out of reach (the metrics). */
  onUnavailable?: () => void;
}

/**
 * An event's id: Standard Webhooks' `webhook-id`, the same on every attempt. It begins with the
 * time (milliseconds, hex), so that each new event is appended to the outbox's key index: with
 * wholly random ids each event wrote into a random page of it, which cost about 40 % of the
 * sign-ups per second (docs/performance.md). The rest is random, as a v4 UUID's.
 */
function newEventId(): string {
  const time = Date.now().toString(16).padStart(12, '0');
  return `msg_${time}${randomUUID().replaceAll('-', '').slice(time.length)}`;
}

/** What each database kind implements: the same three statements, in its own driver. */
interface Statements {
  /** Inserts `row`, as a repeat of the first row of its phone and notes after `windowStart`. */
  insert(row: SentRow, windowStart: string): Promise<Registered>;
  /** Rows from `since` on ('' for all), oldest first. */
  selectSince(since: string): Promise<RegistrationsTable[]>;
  countByLinkSince(since: string): Promise<LinkCountRow[]>;
  countByCampaignSince(since: string): Promise<CampaignCountRow[]>;
  marketerLeadDays(marketingId: string, since: string): Promise<LeadDayRow[]>;
  ping(): Promise<void>;
}

const columns = registrationColumns.join(', ');
// What a sign-up brings; the database works out repeat_of.
type SentRow = Omit<RegistrationsTable, 'repeat_of'>;
// In the order of register_sign_ups's arguments: the campaign parameters come last, after the
// window starts and the events' ids (see the 2026-11-23T1700 migration).
const utmColumns = new Set<string>(utmFields);
const sentColumns = registrationColumns.filter(
  (column): column is Exclude<keyof SentRow, UtmField> =>
    column !== 'repeat_of' && !utmColumns.has(column),
);

interface PendingInsert {
  row: SentRow;
  windowStart: string;
}

interface Counts {
  leads: number | string;
  repeats: number | string;
}
type LinkCountRow = Counts & { marketing_id: string | null; package_key: string | null };
type CampaignCountRow = Counts & { utm_source: string | null; utm_campaign: string | null };
// Each row counts for its first row's link and campaign (a lead is its own first row).
const countBy = (columns: string) => `select ${columns},
    count(*) - count(sign_up.repeat_of) as leads, count(sign_up.repeat_of) as repeats
  from registrations sign_up
    join registrations lead on lead.id = coalesce(sign_up.repeat_of, sign_up.id)
  where sign_up.created_at >= $since group by ${columns}`;
const countByLink = countBy('lead.marketing_id, lead.package_key');
const countByCampaign = countBy('lead.utm_source, lead.utm_campaign');

interface LeadDayRow {
  day: string;
  package_key: string | null;
  leads: number | string;
}
// A lead is its own first row, so it is counted as countByLink counts it: repeat_of null.
const marketerLeadDays = `select substr(created_at, 1, 10) as day, package_key, count(*) as leads
  from registrations where marketing_id = $marketer and created_at >= $since and repeat_of is null
  group by substr(created_at, 1, 10), package_key`;

// Statements prepared once on the raw driver: a query built per call halved the API's
// throughput (docs/performance.md).
function sqliteStatements(
  { driver, isUnavailable }: SqliteDatabase,
  { webhookEvents = false, observeBatch }: RepositoryOptions,
): Statements {
  // One INSERT that looks up the first row itself: SQLite runs it under its single write lock,
  // so of concurrent identical requests exactly one finds none and is the first.
  const insert = driver.prepare<
    SentRow & { window_start: string },
    Pick<RegistrationsTable, 'repeat_of'>
  >(
    `insert into registrations (${columns})
     values (@id, @created_at, @name, @email, @phone, @notes, @marketing_id, @package_key, @source,
       (select id from registrations
        where phone = @phone and notes = @notes and created_at > @window_start and repeat_of is null
        order by created_at limit 1),
       @utm_source, @utm_medium, @utm_campaign, @utm_term, @utm_content)
     returning repeat_of`,
  );
  const since = driver.prepare<[string], RegistrationsTable>(
    'select * from registrations where created_at >= ? order by created_at, id',
  );
  const countSince = driver.prepare<[string], LinkCountRow>(countByLink.replace('$since', '?'));
  const countCampaignsSince = driver.prepare<[string], CampaignCountRow>(
    countByCampaign.replace('$since', '?'),
  );
  const leadDays = driver.prepare<{ marketer: string; since: string }, LeadDayRow>(
    marketerLeadDays.replace('$marketer', '@marketer').replace('$since', '@since'),
  );
  const insertEvent = driver.prepare<[string, string, string, string, string]>(
    `insert into webhook_events (id, registration_id, type, status, created_at, next_attempt_at)
     values (?, ?, ?, 'pending', ?, ?)`,
  );
  const ping = driver.prepare('select 1');

  function insertOne({ row, windowStart }: PendingInsert): Registered {
    const stored = insert.get({ ...row, window_start: windowStart });
    if (stored === undefined) throw new Error('the insert returned no row');
    const repeat = stored.repeat_of !== null;
    if (webhookEvents) {
      const type = repeat ? 'registration.repeated' : 'registration.created';
      insertEvent.run(newEventId(), row.id, type, row.created_at, row.created_at);
    }
    return { id: stored.repeat_of ?? row.id, repeat };
  }

  // A batch is one IMMEDIATE transaction (docs/performance.md, group commit); a statement that
  // fails fails its own sign-up, a database out of reach the whole batch.
  const writeBatch = driver.transaction((batch: PendingInsert[]) =>
    batch.map((item): ItemResult<Registered> => {
      try {
        return { ok: true, value: insertOne(item) };
      } catch (error) {
        if (isUnavailable(error)) throw error;
        return { ok: false, error };
      }
    }),
  );
  // One writer: SQLite has one, and the batch blocks the event loop while it is written.
  const register = groupCommit(
    (batch: PendingInsert[]) => writeBatch.immediate(batch),
    1,
    observeBatch,
  );

  return {
    insert: (row, windowStart) => register({ row, windowStart }),
    async selectSince(from) {
      return since.all(from);
    },
    async countByLinkSince(from) {
      return countSince.all(from);
    },
    async countByCampaignSince(from) {
      return countCampaignsSince.all(from);
    },
    async marketerLeadDays(marketer, from) {
      return leadDays.all({ marketer, since: from });
    },
    async ping() {
      ping.get();
    },
  };
}

function postgresStatements(
  { driver: pool, isUnavailable }: PostgresDatabase,
  { webhookEvents = false, observeBatch }: RepositoryOptions,
): Statements {
  // One round trip and one commit a batch: the repeat rule and the webhook events run inside
  // the database (see the 2026-11-23T1500 migration). A named statement, which pg prepares
  // once per connection.
  const statement = {
    name: 'tasjeel-register-sign-ups',
    text: `select id, not created as repeat
      from register_sign_ups(${Array.from({ length: 16 }, (_, i) => `$${i + 1}`).join(', ')})`,
  };
  async function writeBatch(batch: PendingInsert[]): Promise<Registered[]> {
    const { rows } = await pool.query<Registered>({
      ...statement,
      values: [
        ...sentColumns.map((column) => batch.map(({ row }) => row[column])),
        batch.map(({ windowStart }) => windowStart),
        webhookEvents ? batch.map(newEventId) : null,
        ...utmFields.map((field) => batch.map(({ row }) => row[field])),
      ],
    });
    if (rows.length !== batch.length) throw new Error('register_sign_ups lost a row');
    return rows;
  }
  // A batch fails as a whole. When the database is not out of reach, the fault may be one
  // sign-up's (a value PostgreSQL refuses): each is then tried alone, to fail only itself.
  async function writeEachAlone(batch: PendingInsert[]): Promise<ItemResult<Registered>[]> {
    try {
      return (await writeBatch(batch)).map((value) => ({ ok: true, value }));
    } catch (error) {
      if (batch.length === 1 || isUnavailable(error)) throw error;
      return Promise.all(
        batch.map((item) =>
          writeBatch([item]).then(
            ([value]) => ({ ok: true as const, value: value as Registered }),
            (itemError: unknown) => ({ ok: false as const, error: itemError }),
          ),
        ),
      );
    }
  }
  // As many batches at once as the pool has connections; more sign-ups wait and go together.
  const register = groupCommit(writeEachAlone, pool.options.max, observeBatch);

  return {
    insert: (row, windowStart) => register({ row, windowStart }),
    async selectSince(since) {
      const { rows } = await pool.query<RegistrationsTable>(
        'select * from registrations where created_at >= $1 order by created_at, id',
        [since],
      );
      return rows;
    },
    async countByLinkSince(since) {
      const { rows } = await pool.query<LinkCountRow>(countByLink.replace('$since', '$1'), [since]);
      return rows;
    },
    async countByCampaignSince(since) {
      const { rows } = await pool.query<CampaignCountRow>(countByCampaign.replace('$since', '$1'), [
        since,
      ]);
      return rows;
    },
    async marketerLeadDays(marketer, since) {
      const { rows } = await pool.query<LeadDayRow>({
        name: 'tasjeel-marketer-lead-days',
        text: marketerLeadDays.replace('$marketer', '$1').replace('$since', '$2'),
        values: [marketer, since],
      });
      return rows;
    },
    async ping() {
      await pool.query('select 1');
    },
  };
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
  };
}

/** A row's campaign parameters, as an object of those present (the export, the webhook). */
export function utmOf(row: RegistrationsTable): Utm {
  const utm: Utm = {};
  for (const field of utmFields) {
    const value = row[field];
    if (value !== null) utm[field] = value;
  }
  return utm;
}

export function createRegistrationRepository(
  database: Database,
  options: RepositoryOptions = {},
): RegistrationRepository {
  const statements =
    database.kind === 'sqlite'
      ? sqliteStatements(database, options)
      : postgresStatements(database, options);
  // A database out of reach is told apart from a bug: the route answers 503, not 500.
  async function guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (!database.isUnavailable(error)) throw error;
      options.onUnavailable?.();
      throw new DatabaseUnavailableError(error);
    }
  }

  return {
    register: (input, now) =>
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
        };
        const windowStart = new Date(now.getTime() - duplicateWindowMs).toISOString();
        return statements.insert(row, windowStart);
      }),
    list: ({ since } = {}) =>
      guard(async () => (await statements.selectSince(since?.toISOString() ?? '')).map(toStored)),
    countByLink: ({ since } = {}) =>
      guard(async () =>
        (await statements.countByLinkSince(since?.toISOString() ?? '')).map((row) => ({
          marketingId: row.marketing_id,
          packageKey: row.package_key,
          // PostgreSQL's count is a bigint, which pg gives as text.
          leads: Number(row.leads),
          repeats: Number(row.repeats),
        })),
      ),
    countByCampaign: ({ since } = {}) =>
      guard(async () =>
        (await statements.countByCampaignSince(since?.toISOString() ?? '')).map((row) => ({
          utmSource: row.utm_source,
          utmCampaign: row.utm_campaign,
          leads: Number(row.leads),
          repeats: Number(row.repeats),
        })),
      ),
    marketerLeadDays: (marketingId, since) =>
      guard(async () =>
        (await statements.marketerLeadDays(marketingId, since.toISOString())).map((row) => ({
          day: row.day,
          packageKey: row.package_key,
          leads: Number(row.leads),
        })),
      ),
    ping: () => guard(() => statements.ping()),
    close: () => database.close(),
  };
}
