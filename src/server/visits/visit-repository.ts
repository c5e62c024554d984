import { randomBytes } from 'node:crypto';
import type { OpenDatabase, VisitsTable } from '../db/database';
import type { PostgresDatabase } from '../db/postgres';
import type { SqliteDatabase } from '../db/sqlite';

/** One visitor's page views of one link on one UTC day. */
export interface VisitCount {
  /** YYYY-MM-DD, UTC. */
  day: string;
  marketingId: string | null;
  /** null for the free trial. */
  packageKey: string | null;
  visitorHash: string;
  count: number;
}

/** A link's numbers over a period. */
export interface LinkVisits {
  marketingId: string | null;
  packageKey: string | null;
  /** Page views. */
  visits: number;
  /** Unique visitors of each day, added up: the hash rotates daily, so days cannot be joined. */
  visitors: number;
}

/** The one way to the visits tables, whichever database DATABASE_URL names. */
export interface VisitRepository {
  /** Adds each count to the stored one (one statement or transaction, so instances may race). */
  add(counts: VisitCount[]): Promise<void>;
  /**
   * The salt of the visitor hashes of `day`, made by whichever instance asks first; salts of
   * days before `day`'s previous day are deleted, so older hashes can no longer be recomputed.
   */
  salt(day: string): Promise<string>;
  /** Per marketer and package, from the day `since` (YYYY-MM-DD) on; everything without it. */
  totals(options?: { since?: string }): Promise<LinkVisits[]>;
}

interface TotalsRow {
  marketing_id: string;
  package_key: string;
  visits: number | string;
  visitors: number | string;
}

/** What each database kind implements, in its own driver. */
interface Statements {
  add(rows: VisitsTable[]): Promise<void>;
  /** Inserts `salt` for `day` unless one is there, deletes those before `oldest`; returns the day's. */
  salt(day: string, salt: string, oldest: string): Promise<string>;
  totals(since: string): Promise<TotalsRow[]>;
}

const upsert = `insert into visits (day, marketing_id, package_key, visitor_hash, count)`;
const onConflict = `on conflict (day, marketing_id, package_key, visitor_hash)
  do update set count = visits.count + excluded.count`;
const totals = `select marketing_id, package_key, sum(count) as visits, count(*) as visitors
  from visits where day >= $since group by marketing_id, package_key`;

// Prepared once, like the registrations' statements: a flush runs every second under load.
function sqliteStatements({ driver }: SqliteDatabase): Statements {
  const insert = driver.prepare<VisitsTable>(
    `${upsert} values (@day, @marketing_id, @package_key, @visitor_hash, @count) ${onConflict}`,
  );
  const addAll = driver.transaction((rows: VisitsTable[]) => {
    for (const row of rows) insert.run(row);
  });
  const insertSalt = driver.prepare<[string, string]>(
    'insert into visit_salts (day, salt) values (?, ?) on conflict (day) do nothing',
  );
  const selectSalt = driver.prepare<[string], { salt: string }>(
    'select salt from visit_salts where day = ?',
  );
  const deleteSalts = driver.prepare<[string]>('delete from visit_salts where day < ?');
  const selectTotals = driver.prepare<{ since: string }, TotalsRow>(
    totals.replace('$since', '@since'),
  );
  return {
    async add(rows) {
      addAll(rows);
    },
    async salt(day, salt, oldest) {
      insertSalt.run(day, salt);
      deleteSalts.run(oldest);
      const row = selectSalt.get(day);
      if (row === undefined) throw new Error(`the visit salt of ${day} vanished`);
      return row.salt;
    },
    async totals(since) {
      return selectTotals.all({ since });
    },
  };
}

function postgresStatements({ driver: pool }: PostgresDatabase): Statements {
  // A whole flush is one statement: arrays in, one row each. The rows come sorted by key, so
  // two instances updating the same rows lock them in the same order and cannot deadlock.
  const insert = {
    name: 'tasjeel-visits-add',
    text: `${upsert}
      select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[])
      ${onConflict}`,
  };
  return {
    async add(rows) {
      const columns = ['day', 'marketing_id', 'package_key', 'visitor_hash', 'count'] as const;
      await pool.query({ ...insert, values: columns.map((column) => rows.map((r) => r[column])) });
    },
    async salt(day, salt, oldest) {
      await pool.query({
        name: 'tasjeel-visits-salt-insert',
        text: 'insert into visit_salts (day, salt) values ($1, $2) on conflict (day) do nothing',
        values: [day, salt],
      });
      await pool.query({
        name: 'tasjeel-visits-salt-delete',
        text: 'delete from visit_salts where day < $1',
        values: [oldest],
      });
      const { rows } = await pool.query<{ salt: string }>({
        name: 'tasjeel-visits-salt-select',
        text: 'select salt from visit_salts where day = $1',
        values: [day],
      });
      const stored = rows[0]?.salt;
      if (stored === undefined) throw new Error(`the visit salt of ${day} vanished`);
      return stored;
    },
    async totals(since) {
      const { rows } = await pool.query<TotalsRow>(totals.replace('$since', '$1'), [since]);
      return rows;
    },
  };
}

function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
}

export function createVisitRepository(database: OpenDatabase): VisitRepository {
  const statements =
    database.kind === 'sqlite' ? sqliteStatements(database) : postgresStatements(database);
  return {
    async add(counts) {
      if (counts.length === 0) return;
      const rows = counts
        .map((count) => ({
          day: count.day,
          marketing_id: count.marketingId ?? '',
          package_key: count.packageKey ?? '',
          visitor_hash: count.visitorHash,
          count: count.count,
        }))
        .sort((a, b) => compareKeys(a, b));
      await statements.add(rows);
    },
    salt: (day) => statements.salt(day, randomBytes(32).toString('base64url'), previousDay(day)),
    async totals({ since } = {}) {
      const rows = await statements.totals(since ?? '');
      return rows.map((row) => ({
        marketingId: row.marketing_id === '' ? null : row.marketing_id,
        packageKey: row.package_key === '' ? null : row.package_key,
        // PostgreSQL's count and sum are bigint, which pg gives as text.
        visits: Number(row.visits),
        visitors: Number(row.visitors),
      }));
    },
  };
}

function compareKeys(a: VisitsTable, b: VisitsTable): number {
  for (const key of ['day', 'marketing_id', 'package_key', 'visitor_hash'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return 0;
}
