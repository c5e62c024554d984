import { sql, type Expression, type Kysely } from 'kysely';
import { foldCampaigns } from '../campaigns';
import type { Tables } from '../db/schema';

/** What a count can be split by: the day a submission was made, its lead's link and campaign. */
export type CountKey = 'day' | 'marketing_id' | 'package_key' | 'utm_source' | 'utm_campaign';
const countKeys = ['day', 'marketing_id', 'package_key', 'utm_source', 'utm_campaign'] as const;

export interface CountFilter {
  /** From this time on (ISO); a deleted submission counts from its day on. */
  since?: string;
  /** Only the leads credited to this marketer (a repeat counts for its lead's marketer). */
  marketingId?: string;
  /** Count repeats too; without it they are left out (they cost a join). */
  repeats?: boolean;
}

/** One group's leads (first rows) and repeats; a key's null means none (no marketer, …). */
export type SignUpCount<K extends CountKey> = { [Key in K]: string | null } & {
  leads: number;
  repeats: number;
};

const text = (value: Expression<string | null>) => sql<string>`coalesce(${value}, '')`;
const dayOf = (value: Expression<string>) => sql<string>`substr(${value}, 1, 10)`;

/**
 * The one count of a lead: stored first rows, plus the counts kept for deleted ones
 * (sign_up_totals), each for the day it was made and its lead's link and campaign; a link's
 * campaigns past the day's limit count as otherCampaign (campaigns.ts). The report
 * per link and per campaign and a marketer's numbers all count with it, so that they agree,
 * also after a retention purge.
 */
export async function countSignUps<K extends CountKey>(
  db: Kysely<Tables>,
  by: readonly K[],
  { since = '', marketingId, repeats = false }: CountFilter = {},
): Promise<SignUpCount<K>[]> {
  const leads = db
    .selectFrom('registrations as r')
    .where('r.repeat_of', 'is', null)
    .where('r.created_at', '>=', since)
    .$if(marketingId !== undefined, (q) => q.where('r.marketing_id', '=', marketingId!))
    .select((eb) => [
      dayOf(eb.ref('r.created_at')).as('day'),
      text(eb.ref('r.marketing_id')).as('marketing_id'),
      text(eb.ref('r.package_key')).as('package_key'),
      text(eb.ref('r.utm_source')).as('utm_source'),
      text(eb.ref('r.utm_campaign')).as('utm_campaign'),
      eb.fn.countAll<number>().as('leads'),
      sql<number>`0`.as('repeats'),
    ])
    .groupBy((eb) => [
      dayOf(eb.ref('r.created_at')),
      text(eb.ref('r.marketing_id')),
      text(eb.ref('r.package_key')),
      text(eb.ref('r.utm_source')),
      text(eb.ref('r.utm_campaign')),
    ]);
  const repeated = db
    .selectFrom('registrations as r')
    .innerJoin('registrations as lead', 'lead.id', 'r.repeat_of')
    .where('r.created_at', '>=', since)
    .$if(marketingId !== undefined, (q) => q.where('lead.marketing_id', '=', marketingId!))
    .select((eb) => [
      dayOf(eb.ref('r.created_at')).as('day'),
      text(eb.ref('lead.marketing_id')).as('marketing_id'),
      text(eb.ref('lead.package_key')).as('package_key'),
      text(eb.ref('lead.utm_source')).as('utm_source'),
      text(eb.ref('lead.utm_campaign')).as('utm_campaign'),
      sql<number>`0`.as('leads'),
      eb.fn.countAll<number>().as('repeats'),
    ])
    .groupBy((eb) => [
      dayOf(eb.ref('r.created_at')),
      text(eb.ref('lead.marketing_id')),
      text(eb.ref('lead.package_key')),
      text(eb.ref('lead.utm_source')),
      text(eb.ref('lead.utm_campaign')),
    ]);
  const deleted = db
    .selectFrom('sign_up_totals')
    .where('day', '>=', since.slice(0, 10))
    .$if(marketingId !== undefined, (q) => q.where('marketing_id', '=', marketingId!))
    .select([...countKeys, 'leads', 'repeats']);
  const all = repeats ? leads.unionAll(repeated).unionAll(deleted) : leads.unionAll(deleted);
  const rows = await db
    .selectFrom(all.as('counted'))
    .select((eb) => [
      ...countKeys,
      eb.fn.sum<number | string>('leads').as('leads'),
      eb.fn.sum<number | string>('repeats').as('repeats'),
    ])
    .groupBy([...countKeys])
    .execute();
  // A link's campaigns of a day are bounded (campaigns.ts) wherever they are counted by.
  const counted = rows.map((row) => ({
    ...row,
    // PostgreSQL's sum is a bigint or numeric, which pg gives as text.
    leads: Number(row.leads),
    repeats: Number(row.repeats),
  }));
  const bounded =
    by.includes('utm_source' as K) || by.includes('utm_campaign' as K)
      ? foldCampaigns(counted, (row) =>
          JSON.stringify([row.day, row.marketing_id, row.package_key]),
        )
      : counted;
  // Grouped once in SQL by every key (one statement for every caller), then by the keys asked.
  const groups = new Map<string, SignUpCount<K>>();
  for (const row of bounded) {
    const key = JSON.stringify(by.map((column) => row[column]));
    let group = groups.get(key);
    if (group === undefined) {
      group = { leads: 0, repeats: 0 } as SignUpCount<K>;
      for (const column of by) {
        (group as unknown as Record<CountKey, string | null>)[column] =
          row[column] === '' ? null : row[column];
      }
      groups.set(key, group);
    }
    group.leads += row.leads;
    group.repeats += row.repeats;
  }
  return [...groups.values()].filter((group) => group.leads > 0 || group.repeats > 0);
}
