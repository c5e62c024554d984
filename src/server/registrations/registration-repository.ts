import { randomUUID } from 'node:crypto';
import { parseNotes, type Source } from '../../domain/notes';
import type { Registration } from '../../domain/registration';
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
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What each database kind implements: the same three statements, in its own driver. */
interface Statements {
  /** Inserts `row`, as a repeat of the first row of its phone and notes after `windowStart`. */
  insert(row: SentRow, windowStart: string): Promise<Registered>;
  /** Rows from `since` on ('' for all), oldest first. */
  selectSince(since: string): Promise<RegistrationsTable[]>;
  countByLinkSince(since: string): Promise<LinkCountRow[]>;
  ping(): Promise<void>;
}

const columns = registrationColumns.join(', ');
// What a sign-up brings; the database works out repeat_of.
type SentRow = Omit<RegistrationsTable, 'repeat_of'>;
const sentColumns = registrationColumns.filter(
  (column): column is keyof SentRow => column !== 'repeat_of',
);

interface PendingInsert {
  row: SentRow;
  windowStart: string;
}

interface LinkCountRow {
  marketing_id: string | null;
  package_key: string | null;
  leads: number | string;
  repeats: number | string;
}
// Each row counts for its first row's link (a lead is its own first row).
const countByLink = `select lead.marketing_id, lead.package_key,
    count(*) - count(sign_up.repeat_of) as leads, count(sign_up.repeat_of) as repeats
  from registrations sign_up
    join registrations lead on lead.id = coalesce(sign_up.repeat_of, sign_up.id)
  where sign_up.created_at >= $since group by lead.marketing_id, lead.package_key`;

// Statements prepared once on the raw driver: a query built per call halved the API's
// throughput (docs/performance.md).
function sqliteStatements({ driver, isUnavailable }: SqliteDatabase): Statements {
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
        order by created_at limit 1))
     returning repeat_of`,
  );
  const since = driver.prepare<[string], RegistrationsTable>(
    'select * from registrations where created_at >= ? order by created_at, id',
  );
  const countSince = driver.prepare<[string], LinkCountRow>(countByLink.replace('$since', '?'));
  const ping = driver.prepare('select 1');

  function insertOne({ row, windowStart }: PendingInsert): Registered {
    const stored = insert.get({ ...row, window_start: windowStart });
    if (stored === undefined) throw new Error('the insert returned no row');
    return { id: stored.repeat_of ?? row.id, repeat: stored.repeat_of !== null };
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
  const register = groupCommit((batch: PendingInsert[]) => writeBatch.immediate(batch), 1);

  return {
    insert: (row, windowStart) => register({ row, windowStart }),
    async selectSince(from) {
      return since.all(from);
    },
    async countByLinkSince(from) {
      return countSince.all(from);
    },
    async ping() {
      ping.get();
    },
  };
}

function postgresStatements({ driver: pool, isUnavailable }: PostgresDatabase): Statements {
  // One round trip and one commit a batch: the repeat rule runs inside the database (see the
  // 2026-11-23T1200 migration). A named statement, which pg prepares once per connection.
  const statement = {
    name: 'tasjeel-register',
    text: 'select id, not created as repeat from register_unless_duplicate($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
  };
  async function writeBatch(batch: PendingInsert[]): Promise<Registered[]> {
    const { rows } = await pool.query<Registered>({
      ...statement,
      values: [
        ...sentColumns.map((column) => batch.map(({ row }) => row[column])),
        batch.map(({ windowStart }) => windowStart),
      ],
    });
    if (rows.length !== batch.length) throw new Error('register_unless_duplicate lost a row');
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
  const register = groupCommit(writeEachAlone, pool.options.max);

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
    async ping() {
      await pool.query('select 1');
    },
  };
}

function toStored(row: RegistrationsTable): StoredRegistration {
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
  };
}

export function createRegistrationRepository(database: Database): RegistrationRepository {
  const statements =
    database.kind === 'sqlite' ? sqliteStatements(database) : postgresStatements(database);
  // A database out of reach is told apart from a bug: the route answers 503, not 500.
  async function guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw database.isUnavailable(error) ? new DatabaseUnavailableError(error) : error;
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
    ping: () => guard(() => statements.ping()),
    close: () => database.close(),
  };
}
