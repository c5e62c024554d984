import { sql } from 'kysely';
import {
  campaignsPerAddressDay,
  campaignsPerLinkDay,
  otherCampaign,
  visitorsPerAddressLinkDay,
  visitsPerAddressDay,
} from '../campaigns';
import { writeTransaction } from '../db/dialect';
import type { Database, VisitsTable } from '../db/schema';

/** One visitor of one link on one UTC day. */
export interface Visit {
  /** YYYY-MM-DD, UTC. */
  day: string;
  marketingId: string | null;
  /** null for the free trial. */
  packageKey: string | null;
  visitorHash: string;
  /** The visitor's address (IPv6: its /48), hashed under the day's salt as visitorHash is. */
  addressHash: string;
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
  /**
   * Stores the visits not stored yet, within the limits per address and link of campaigns.ts,
   * in one transaction under one lock, so that instances count against the same limits.
   */
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
  /** Each of these marketers' visits from the day `since` on, counted as `totals` (a team). */
  marketerTotals(marketingIds: string[], since: string): Promise<MarketerVisits[]>;
}

/** A marketer's visits over a period. */
export interface MarketerVisits {
  marketingId: string;
  visits: number;
  visitors: number;
}

/** A marketer's link (its package) on one day. */
export interface DayVisits {
  day: string;
  packageKey: string | null;
  visits: number;
  visitors: number;
}

type Totals = { visits: number | string; visitors: number | string };
const key = ['day', 'marketing_id', 'package_key', 'utm_source', 'utm_campaign'] as const;

export function createVisitRepository(database: Database): VisitRepository {
  const { db } = database;

  /**
   * The finished days' totals and today's visitor rows, counted alike (a visitor row is one
   * visitor, its count the visits of rows from before a visit was one a visitor, link and day),
   * from the day `since` on and, when given, for these marketers.
   */
  function days(since: string, marketingIds?: string[]) {
    return db.selectFrom(
      db
        .selectFrom('visit_totals')
        .select([...key, 'visits', 'visitors'])
        .where('day', '>=', since)
        .$if(marketingIds !== undefined, (q) => q.where('marketing_id', 'in', marketingIds!))
        .unionAll(
          db
            .selectFrom('visits')
            .select((eb) => [...key, eb.ref('count').as('visits'), sql<number>`1`.as('visitors')])
            .where('day', '>=', since)
            .$if(marketingIds !== undefined, (q) => q.where('marketing_id', 'in', marketingIds!)),
        )
        .as('days'),
    );
  }

  /** days(), added up by every key. */
  async function counted(since: string, marketingIds?: string[]) {
    const rows = await days(since, marketingIds)
      .select((eb) => [
        ...key,
        eb.fn.sum<number | string>('visits').as('visits'),
        eb.fn.sum<number | string>('visitors').as('visitors'),
      ])
      .groupBy([...key])
      .execute();
    // PostgreSQL's sum is a bigint, which pg gives as text.
    return rows.map((row) => ({
      ...row,
      visits: Number(row.visits),
      visitors: Number(row.visitors),
    }));
  }

  /** Adds up `rows` by the keys `by` gives, '' read as null. */
  function sumBy<Row extends Totals>(rows: Row[], by: (row: Row) => (string | null)[]) {
    const sums = new Map<string, { keys: (string | null)[]; visits: number; visitors: number }>();
    for (const row of rows) {
      const keys = by(row).map((value) => (value === '' ? null : value));
      const id = JSON.stringify(keys);
      const sum = sums.get(id) ?? { keys, visits: 0, visitors: 0 };
      sum.visits += Number(row.visits);
      sum.visitors += Number(row.visitors);
      sums.set(id, sum);
    }
    return [...sums.values()];
  }

  return {
    async add(visits) {
      if (visits.length === 0) return;
      await writeTransaction(database, ['visits'], async (trx) => {
        const days = [...new Set(visits.map((visit) => visit.day))];
        const limits = new VisitLimits(
          // What each address counted today, and the campaigns each link named today.
          await trx
            .selectFrom('visits')
            .select([...key, 'visitor_hash', 'address_hash'])
            .where('day', 'in', days)
            .where('address_hash', 'in', [...new Set(visits.map((visit) => visit.addressHash))])
            .execute(),
          await trx
            .selectFrom('visits')
            .select(key)
            .distinct()
            .where('day', 'in', days)
            .where('marketing_id', 'in', [
              ...new Set(visits.map((visit) => visit.marketingId ?? '')),
            ])
            .execute(),
        );
        const rows = visits
          .map((visit) => limits.admit(visit))
          .filter((row) => row !== undefined)
          // Sorted by key, so that two instances writing the same rows lock them in one order
          // and cannot deadlock.
          .sort((a, b) => compareKeys(a, b));
        if (rows.length === 0) return;
        // A visitor's first view of a link on a day is the visit, its campaign the one counted.
        await trx
          .insertInto('visits')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['day', 'marketing_id', 'package_key', 'visitor_hash']).doNothing(),
          )
          .execute();
      });
    },
    async rollUp(day) {
      // Under one lock, so that of two instances only the first moves a day's rows.
      await writeTransaction(database, ['visits roll-up'], async (trx) => {
        await trx
          .insertInto('visit_totals')
          .columns([...key, 'visits', 'visitors'])
          .expression(
            trx
              .selectFrom('visits')
              .select((eb) => [
                ...key,
                eb.fn.sum<number>('count').as('visits'),
                eb.fn.countAll<number>().as('visitors'),
              ])
              .where('day', '<', day)
              .groupBy([...key]),
          )
          .onConflict((oc) =>
            oc.columns([...key]).doUpdateSet((eb) => ({
              visits: eb(eb.ref('visit_totals.visits'), '+', eb.ref('excluded.visits')),
              visitors: eb(eb.ref('visit_totals.visitors'), '+', eb.ref('excluded.visitors')),
            })),
          )
          .execute();
        await trx.deleteFrom('visits').where('day', '<', day).execute();
      });
    },
    async totals({ since } = {}) {
      return sumBy(await counted(since ?? ''), (row) => [row.marketing_id, row.package_key]).map(
        ({ keys: [marketingId = null, packageKey = null], visits, visitors }) => ({
          marketingId,
          packageKey,
          visits,
          visitors,
        }),
      );
    },
    async campaignTotals({ since } = {}) {
      return sumBy(await counted(since ?? ''), (row) => [row.utm_source, row.utm_campaign]).map(
        ({ keys: [utmSource = null, utmCampaign = null], visits, visitors }) => ({
          utmSource,
          utmCampaign,
          visits,
          visitors,
        }),
      );
    },
    async marketerDays(marketingId, since) {
      return sumBy(await counted(since, [marketingId]), (row) => [row.day, row.package_key]).map(
        ({ keys: [day = '', packageKey = null], visits, visitors }) => ({
          day: day ?? '',
          packageKey,
          visits,
          visitors,
        }),
      );
    },
    async marketerTotals(marketingIds, since) {
      if (marketingIds.length === 0) return [];
      // Added up in SQL by marketer: a team is a row each, not one per day, package and campaign.
      const rows = await days(since, marketingIds)
        .select((eb) => [
          'marketing_id',
          eb.fn.sum<number | string>('visits').as('visits'),
          eb.fn.sum<number | string>('visitors').as('visitors'),
        ])
        .groupBy('marketing_id')
        .execute();
      return rows.map((row) => ({
        marketingId: row.marketing_id,
        visits: Number(row.visits),
        visitors: Number(row.visitors),
      }));
    },
  };
}

/**
 * The limits of campaigns.ts, over the day's rows already stored and the visits admitted so
 * far: an address's visitors per link and visits in all, its campaigns, and each link's.
 */
class VisitLimits {
  private readonly stored = new Set<string>();
  private readonly visitors = new Map<string, number>();
  private readonly visitsOf = new Map<string, number>();
  private readonly campaignsOf = new Map<string, Set<string>>();

  constructor(
    addressRows: Pick<VisitsTable, (typeof key)[number] | 'visitor_hash' | 'address_hash'>[],
    linkCampaigns: Pick<VisitsTable, (typeof key)[number]>[],
  ) {
    for (const row of addressRows) this.count(row);
    for (const row of linkCampaigns) this.name(`link ${linkOf(row)}`, campaignOf(row));
  }

  /** The row to insert for `visit`, its campaign bounded; undefined when it is not counted. */
  admit(visit: Visit): VisitsTable | undefined {
    const row: VisitsTable = {
      day: visit.day,
      marketing_id: visit.marketingId ?? '',
      package_key: visit.packageKey ?? '',
      utm_source: visit.utmSource ?? '',
      utm_campaign: visit.utmCampaign ?? '',
      visitor_hash: visit.visitorHash,
      address_hash: visit.addressHash,
      count: 1,
    };
    const address = `${row.day} ${row.address_hash}`;
    const visitorKey = `${linkOf(row)} ${row.visitor_hash}`;
    if (this.stored.has(visitorKey)) return undefined;
    if ((this.visitors.get(`${address} ${linkOf(row)}`) ?? 0) >= visitorsPerAddressLinkDay) {
      return undefined;
    }
    if ((this.visitsOf.get(address) ?? 0) >= visitsPerAddressDay) return undefined;
    const campaign = campaignOf(row);
    if (
      campaign !== noCampaign &&
      !(
        this.allows(`address ${address}`, campaign, campaignsPerAddressDay) &&
        this.allows(`link ${linkOf(row)}`, campaign, campaignsPerLinkDay)
      )
    ) {
      row.utm_source = otherCampaign;
      row.utm_campaign = otherCampaign;
    }
    this.count(row);
    return row;
  }

  private count(row: Pick<VisitsTable, (typeof key)[number] | 'visitor_hash' | 'address_hash'>) {
    const address = `${row.day} ${row.address_hash}`;
    const visitorKey = `${linkOf(row)} ${row.visitor_hash}`;
    if (this.stored.has(visitorKey)) return;
    this.stored.add(visitorKey);
    const perLink = `${address} ${linkOf(row)}`;
    this.visitors.set(perLink, (this.visitors.get(perLink) ?? 0) + 1);
    this.visitsOf.set(address, (this.visitsOf.get(address) ?? 0) + 1);
    this.name(`address ${address}`, campaignOf(row));
    this.name(`link ${linkOf(row)}`, campaignOf(row));
  }

  private allows(owner: string, campaign: string, limit: number): boolean {
    const named = this.campaignsOf.get(owner);
    return named === undefined || named.has(campaign) || named.size < limit;
  }

  private name(owner: string, campaign: string) {
    if (campaign === noCampaign || campaign === otherOne) return;
    const named = this.campaignsOf.get(owner) ?? new Set<string>();
    named.add(campaign);
    this.campaignsOf.set(owner, named);
  }
}

const campaignOf = (row: Pick<VisitsTable, 'utm_source' | 'utm_campaign'>) =>
  JSON.stringify([row.utm_source, row.utm_campaign]);
const linkOf = (row: Pick<VisitsTable, 'day' | 'marketing_id' | 'package_key'>) =>
  JSON.stringify([row.day, row.marketing_id, row.package_key]);
const noCampaign = campaignOf({ utm_source: '', utm_campaign: '' });
const otherOne = campaignOf({ utm_source: otherCampaign, utm_campaign: otherCampaign });

function compareKeys(a: VisitsTable, b: VisitsTable): number {
  for (const key of ['day', 'marketing_id', 'package_key', 'visitor_hash'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return 0;
}
