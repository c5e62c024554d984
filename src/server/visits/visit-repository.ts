import type { Database, PostgresDatabase, SqliteDatabase, VisitsTable } from '../db/schema';

/** One visitor of one link on one UTC day. */
export interface Visit {
  /** YYYY-MM-DD, UTC. */
  day: string;
  marketingId: string | null;
  /** null for the free trial. */
  packageKey: string | null;
  visitorHash: string;
  /** The page address's utm_source and utm_campaign (as a sign-up sends them); null for none. */
  utmSource: string | null;
  utmCampaign: string | null;
}

/** A link's numbers over a period. */
export interface LinkVisits {
  marketingId: string | null;
  packageKey: string | null;
  /** Visits: at most one a visitor, link and day. */
  visits: number;
  /** Unique visitors of each day, added up: the hash rotates daily, so days cannot be joined. */
  visitors: number;
}

/** A campaign's numbers over a period: a utm_source and a utm_campaign, either null for none. */
export interface CampaignVisits {
  utmSource: string | null;
  utmCampaign: string | null;
  visits: number;
  visitors: number;
}

/** The one way to the visits tables, whichever database DATABASE_URL names. */
export interface VisitRepository {
  /** Stores the visits not stored yet (one statement or transaction, so instances may race). */
  add(visits: Visit[]): Promise<void>;
  /**
   * Rolls the days before `day` up into counts per link and deletes their visitor rows, so a
   * visitor hash lives two days at most. Each row moves once, however many instances ask.
   */
  rollUp(day: string): Promise<void>;
  /** Per marketer and package, from the day `since` (YYYY-MM-DD) on; everything without it. */
  totals(options?: { since?: string }): Promise<LinkVisits[]>;
  /** Per utm_source and utm_campaign, from the day `since` on; everything without it. */
  campaignTotals(options?: { since?: string }): Promise<CampaignVisits[]>;
  /** One marketer's links per day and package, from the day `since` on, counted as `totals`. */
  marketerDays(marketingId: string, since: string): Promise<DayVisits[]>;
}

/** A marketer's link (its package) on one day. */
export interface DayVisits {
  day: string;
  packageKey: string | null;
  visits: number;
  visitors: number;
}

interface Counts {
  visits: number | string;
  visitors: number | string;
}
type TotalsRow = Counts & { marketing_id: string; package_key: string };
type CampaignTotalsRow = Counts & { utm_source: string; utm_campaign: string };

interface DayRow {
  day: string;
  package_key: string;
  visits: number | string;
  visitors: number | string;
}

/** What each database kind implements, in its own driver. */
interface Statements {
  add(rows: VisitsTable[]): Promise<void>;
  rollUp(day: string): Promise<void>;
  totals(since: string): Promise<TotalsRow[]>;
  campaignTotals(since: string): Promise<CampaignTotalsRow[]>;
  marketerDays(marketingId: string, since: string): Promise<DayRow[]>;
}

const upsert = `insert into visits (day, marketing_id, package_key, utm_source, utm_campaign,
  visitor_hash, count)`;
// A visitor's first view of a link on a day is the visit, its campaign the one counted.
const onConflict = 'on conflict (day, marketing_id, package_key, visitor_hash) do nothing';
const totalsKey = 'day, marketing_id, package_key, utm_source, utm_campaign';
// Rows from before this rule counted a visitor's page views: those roll up as they are.
const rolledUp = `select ${totalsKey}, sum(count) as visits, count(*) as visitors
  from $rows group by ${totalsKey}`;
const addTotals = `insert into visit_totals (${totalsKey}, visits, visitors)
  ${rolledUp} on conflict (${totalsKey}) do update set
  visits = visit_totals.visits + excluded.visits, visitors = visit_totals.visitors + excluded.visitors`;
// The finished days' totals and today's visitor rows, counted alike; `where` is applied to each,
// so that each table's index serves it.
const allDays = (where: string) => `(select ${totalsKey}, visits, visitors
    from visit_totals where ${where}
  union all select ${totalsKey}, count, 1 from visits where ${where}) as days`;
/** Visits and visitors from the day $since on, grouped by `columns`. */
const totalsBy = (columns: string) => `select ${columns}, sum(visits) as visits,
    sum(visitors) as visitors from ${allDays('day >= $since')} group by ${columns}`;
const totals = totalsBy('marketing_id, package_key');
const campaignTotals = totalsBy('utm_source, utm_campaign');
const marketerDays = `select day, package_key, sum(visits) as visits, sum(visitors) as visitors
  from ${allDays('marketing_id = $marketer and day >= $since')} group by day, package_key`;

// Prepared once, like the registrations' statements: a flush runs every second under load.
function sqliteStatements({ driver }: SqliteDatabase): Statements {
  const insert = driver.prepare<VisitsTable>(
    `${upsert} values (@day, @marketing_id, @package_key, @utm_source, @utm_campaign,
      @visitor_hash, @count) ${onConflict}`,
  );
  const addAll = driver.transaction((rows: VisitsTable[]) => {
    for (const row of rows) insert.run(row);
  });
  const rollUp = driver.transaction((day: string) => {
    driver
      .prepare(addTotals.replace('$rows', '(select * from visits where day < ?) as days'))
      .run(day);
    driver.prepare('delete from visits where day < ?').run(day);
  });
  const selectTotals = driver.prepare<{ since: string }, TotalsRow>(
    totals.replaceAll('$since', '@since'),
  );
  const selectMarketerDays = driver.prepare<{ marketer: string; since: string }, DayRow>(
    marketerDays.replaceAll('$marketer', '@marketer').replaceAll('$since', '@since'),
  );
  const selectCampaignTotals = driver.prepare<{ since: string }, CampaignTotalsRow>(
    campaignTotals.replaceAll('$since', '@since'),
  );
  return {
    async add(rows) {
      addAll(rows);
    },
    async rollUp(day) {
      rollUp.immediate(day);
    },
    async totals(since) {
      return selectTotals.all({ since });
    },
    async campaignTotals(since) {
      return selectCampaignTotals.all({ since });
    },
    async marketerDays(marketer, since) {
      return selectMarketerDays.all({ marketer, since });
    },
  };
}

function postgresStatements({ driver: pool }: PostgresDatabase): Statements {
  // A whole flush is one statement: arrays in, one row each. The rows come sorted by key, so
  // two instances updating the same rows lock them in the same order and cannot deadlock.
  const insert = {
    name: 'tasjeel-visits-add',
    text: `${upsert}
      select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
        $6::text[], $7::integer[])
      ${onConflict}`,
  };
  return {
    async add(rows) {
      const columns = [
        'day',
        'marketing_id',
        'package_key',
        'utm_source',
        'utm_campaign',
        'visitor_hash',
        'count',
      ] as const;
      await pool.query({ ...insert, values: columns.map((column) => rows.map((r) => r[column])) });
    },
    async rollUp(day) {
      // One statement: the rows one instance deletes, no other can roll up again.
      await pool.query({
        name: 'tasjeel-visits-roll-up',
        text: `with moved as (delete from visits where day < $1 returning *)
          ${addTotals.replace('$rows', 'moved')}`,
        values: [day],
      });
    },
    async totals(since) {
      const { rows } = await pool.query<TotalsRow>(totals.replaceAll('$since', '$1'), [since]);
      return rows;
    },
    async marketerDays(marketer, since) {
      const { rows } = await pool.query<DayRow>({
        name: 'tasjeel-visits-marketer-days',
        text: marketerDays.replaceAll('$marketer', '$1').replaceAll('$since', '$2'),
        values: [marketer, since],
      });
      return rows;
    },
    async campaignTotals(since) {
      const { rows } = await pool.query<CampaignTotalsRow>(
        campaignTotals.replaceAll('$since', '$1'),
        [since],
      );
      return rows;
    },
  };
}

export function createVisitRepository(database: Database): VisitRepository {
  const statements =
    database.kind === 'sqlite' ? sqliteStatements(database) : postgresStatements(database);
  return {
    async add(visits) {
      if (visits.length === 0) return;
      const rows = visits
        .map((visit) => ({
          day: visit.day,
          marketing_id: visit.marketingId ?? '',
          package_key: visit.packageKey ?? '',
          utm_source: visit.utmSource ?? '',
          utm_campaign: visit.utmCampaign ?? '',
          visitor_hash: visit.visitorHash,
          count: 1,
        }))
        .sort((a, b) => compareKeys(a, b));
      await statements.add(rows);
    },
    rollUp: (day) => statements.rollUp(day),
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
    async campaignTotals({ since } = {}) {
      const rows = await statements.campaignTotals(since ?? '');
      return rows.map((row) => ({
        utmSource: row.utm_source === '' ? null : row.utm_source,
        utmCampaign: row.utm_campaign === '' ? null : row.utm_campaign,
        visits: Number(row.visits),
        visitors: Number(row.visitors),
      }));
    },
    async marketerDays(marketingId, since) {
      const rows = await statements.marketerDays(marketingId, since);
      return rows.map((row) => ({
        day: row.day,
        packageKey: row.package_key === '' ? null : row.package_key,
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
