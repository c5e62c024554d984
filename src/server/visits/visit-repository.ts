import {
  campaignsPerAddressDay,
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

/** The one way to the visits tables, whichever database DATABASE_URL names. */
export interface VisitRepository {
  /**
   * Stores the visits not stored yet, within the limits per address of campaigns.ts, in one
   * transaction under one lock, so that instances count against the same limits. A link's
   * campaigns are bounded where they are counted (counts.ts), as its leads' are.
   */
  add(visits: Visit[]): Promise<void>;
  /**
   * Rolls the days before `day` up into counts per link and deletes their visitor rows, so a
   * visitor hash lives two days at most. Each row moves once, however many instances ask.
   */
  rollUp(day: string): Promise<void>;
}

const key = ['day', 'marketing_id', 'package_key', 'utm_source', 'utm_campaign'] as const;

export function createVisitRepository(database: Database): VisitRepository {
  return {
    async add(visits) {
      if (visits.length === 0) return;
      await writeTransaction(database, ['visits'], async (trx) => {
        const days = [...new Set(visits.map((visit) => visit.day))];
        const limits = new VisitLimits(
          // What each address counted today.
          await trx
            .selectFrom('visits')
            .select([...key, 'visitor_hash', 'address_hash'])
            .where('day', 'in', days)
            .where('address_hash', 'in', [...new Set(visits.map((visit) => visit.addressHash))])
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
  };
}

/**
 * The limits of campaigns.ts, over the day's rows already stored and the visits admitted so
 * far: an address's visitors per link, its visits in all and its campaigns.
 */
class VisitLimits {
  private readonly stored = new Set<string>();
  private readonly visitors = new Map<string, number>();
  private readonly visitsOf = new Map<string, number>();
  private readonly campaignsOf = new Map<string, Set<string>>();

  constructor(
    addressRows: Pick<VisitsTable, (typeof key)[number] | 'visitor_hash' | 'address_hash'>[],
  ) {
    for (const row of addressRows) this.count(row);
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
    if (campaign !== noCampaign && !this.allows(address, campaign)) {
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
    const campaign = campaignOf(row);
    if (campaign === noCampaign || campaign === otherOne) return;
    const named = this.campaignsOf.get(address) ?? new Set<string>();
    named.add(campaign);
    this.campaignsOf.set(address, named);
  }

  private allows(address: string, campaign: string): boolean {
    const named = this.campaignsOf.get(address);
    return named === undefined || named.has(campaign) || named.size < campaignsPerAddressDay;
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
