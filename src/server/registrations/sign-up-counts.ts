import { sql, type Expression, type Kysely, type SelectQueryBuilder } from 'kysely';
import { foldCampaigns } from '../campaigns';
import type { RegistrationsTable, Tables } from '../db/schema';

/** What a count can be split by: the day a submission was made, its lead's link and campaign. */
export type CountKey = 'day' | 'marketing_id' | 'package_key' | 'utm_source' | 'utm_campaign';
export const countKeys = [
  'day',
  'marketing_id',
  'package_key',
  'utm_source',
  'utm_campaign',
] as const;

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

const day = (createdAt: Expression<string>) => sql<string>`substr(${createdAt}, 1, 10)`;
// The lead's link and campaign, '' for none: what a count is kept by, with the day. Both
// queries below name the lead's row `lead`.
const leadColumns = [
  'marketing_id',
  'package_key',
  'utm_source',
  'utm_campaign',
] as const satisfies (keyof RegistrationsTable)[];
const leadKey = (column: (typeof leadColumns)[number]) =>
  sql<string>`coalesce(${sql.ref(`lead.${column}`)}, '')`;
const leadKeys = () => leadColumns.map((column) => leadKey(column).as(column));

/** Which stored sign-ups a count reads. */
interface Stored {
  since: string;
  marketingId?: string;
  /** Only these (a deletion's, counted before they go). */
  ids?: SelectQueryBuilder<Tables, 'registrations', { id: string }>;
  repeats: boolean;
}

/**
 * Stored sign-ups by the day each was made and its lead's link and campaign: leads (first rows)
 * and repeats. What countSignUps adds to the kept counts, and what a deletion keeps
 * (registrations/personal-data.ts), so that a lead is counted one way before and after.
 */
export function storedCounts(db: Kysely<Tables>, { since, marketingId, ids, repeats }: Stored) {
  // A lead is its own lead: read alone, through the marketer's covering index.
  const leads = db
    .selectFrom('registrations as lead')
    .where('lead.repeat_of', 'is', null)
    .where('lead.created_at', '>=', since)
    .$if(marketingId !== undefined, (q) => q.where('lead.marketing_id', '=', marketingId!))
    .$if(ids !== undefined, (q) => q.where('lead.id', 'in', ids!))
    .select((eb) => [
      day(eb.ref('lead.created_at')).as('day'),
      ...leadKeys(),
      eb.fn.countAll<number>().as('leads'),
      sql<number>`0`.as('repeats'),
    ])
    .groupBy((eb) => [day(eb.ref('lead.created_at')), ...leadColumns.map(leadKey)]);
  if (!repeats) return leads;
  return leads.unionAll(
    db
      .selectFrom('registrations as r')
      .innerJoin('registrations as lead', 'lead.id', 'r.repeat_of')
      .where('r.created_at', '>=', since)
      .$if(marketingId !== undefined, (q) => q.where('lead.marketing_id', '=', marketingId!))
      .$if(ids !== undefined, (q) => q.where('r.id', 'in', ids!))
      .select((eb) => [
        day(eb.ref('r.created_at')).as('day'),
        ...leadKeys(),
        sql<number>`0`.as('leads'),
        eb.fn.countAll<number>().as('repeats'),
      ])
      .groupBy((eb) => [day(eb.ref('r.created_at')), ...leadColumns.map(leadKey)]),
  );
}

/**
 * The one count of a lead: stored sign-ups (storedCounts), plus the counts kept for deleted ones
 * (sign_up_totals); a link's campaigns past the day's limit count as otherCampaign
 * (campaigns.ts). The report per link and per campaign and a marketer's numbers all count with
 * it, so that they agree, also after a retention purge.
 */
export async function countSignUps<K extends CountKey>(
  db: Kysely<Tables>,
  by: readonly K[],
  { since = '', marketingId, repeats = false }: CountFilter = {},
): Promise<SignUpCount<K>[]> {
  const deleted = db
    .selectFrom('sign_up_totals')
    .where('day', '>=', since.slice(0, 10))
    .$if(marketingId !== undefined, (q) => q.where('marketing_id', '=', marketingId!))
    .select([...countKeys, 'leads', 'repeats']);
  const all = storedCounts(db, { since, marketingId, repeats }).unionAll(deleted);
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
