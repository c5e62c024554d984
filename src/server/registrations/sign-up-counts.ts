import { sql, type Expression, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { LeadStatus } from '../../domain/lead-status';
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

/**
 * What is counted: leads (first rows), repeats, and of the leads those whose status is now each
 * outcome (a lead counts on the day it signed up, whenever its status changed).
 */
export const countColumns = [
  'leads',
  'repeats',
  'contacted',
  'qualified',
  'clients',
  'lost',
] as const;
export type Counted = Record<(typeof countColumns)[number], number>;
const outcomes = {
  contacted: 'contacted',
  qualified: 'qualified',
  clients: 'client',
  lost: 'lost',
} as const satisfies Partial<Record<keyof Counted, LeadStatus>>;
const outcomeColumns = Object.keys(outcomes) as (keyof typeof outcomes)[];

export interface CountFilter {
  /** From this time on (ISO); a deleted submission counts from its day on. */
  since?: string;
  /** Only the leads credited to these marketers (a repeat counts for its lead's marketer). */
  marketingIds?: readonly string[];
  /** Count repeats too; without it they are left out (they cost a join). */
  repeats?: boolean;
}

/** One group's counts; a key's null means none (no marketer, …). */
export type SignUpCount<K extends CountKey> = { [Key in K]: string | null } & Counted;

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
  marketingIds?: readonly string[];
  /** Only these (a deletion's, counted before they go). */
  ids?: SelectQueryBuilder<Tables, 'registrations', { id: string }>;
  repeats: boolean;
}

// Of the leads of a group, those whose status is now `status`.
const withStatus = (status: LeadStatus) =>
  sql<number>`sum(case when ${sql.ref('lead.status')} = ${sql.lit(status)} then 1 else 0 end)`;
const none = () => outcomeColumns.map((column) => sql<number>`0`.as(column));

/**
 * Stored sign-ups by the day each was made and its lead's link and campaign: leads (first rows)
 * with their outcomes, and repeats. What countSignUps adds to the kept counts, and what a
 * deletion keeps (registrations/personal-data.ts), so that a lead is counted one way before and
 * after. The columns are countKeys then countColumns, in their order (the unions need it).
 */
export function storedCounts(db: Kysely<Tables>, { since, marketingIds, ids, repeats }: Stored) {
  // A lead is its own lead: read alone, through the marketer's covering index.
  const leads = db
    .selectFrom('registrations as lead')
    .where('lead.repeat_of', 'is', null)
    .where('lead.created_at', '>=', since)
    .$if(marketingIds !== undefined, (q) => q.where('lead.marketing_id', 'in', marketingIds!))
    .$if(ids !== undefined, (q) => q.where('lead.id', 'in', ids!))
    .select((eb) => [
      day(eb.ref('lead.created_at')).as('day'),
      ...leadKeys(),
      eb.fn.countAll<number>().as('leads'),
      sql<number>`0`.as('repeats'),
      ...outcomeColumns.map((column) => withStatus(outcomes[column]).as(column)),
    ])
    .groupBy((eb) => [day(eb.ref('lead.created_at')), ...leadColumns.map(leadKey)]);
  if (!repeats) return leads;
  return leads.unionAll(
    db
      .selectFrom('registrations as r')
      .innerJoin('registrations as lead', 'lead.id', 'r.repeat_of')
      .where('r.created_at', '>=', since)
      .$if(marketingIds !== undefined, (q) => q.where('lead.marketing_id', 'in', marketingIds!))
      .$if(ids !== undefined, (q) => q.where('r.id', 'in', ids!))
      .select((eb) => [
        day(eb.ref('r.created_at')).as('day'),
        ...leadKeys(),
        sql<number>`0`.as('leads'),
        eb.fn.countAll<number>().as('repeats'),
        ...none(),
      ])
      .groupBy((eb) => [day(eb.ref('r.created_at')), ...leadColumns.map(leadKey)]),
  );
}

/**
 * The one count of a lead: stored sign-ups (storedCounts), plus the counts kept for deleted ones
 * (sign_up_totals). The report per link and per campaign and a marketer's numbers all count
 * with it, so that they agree, also after a retention purge.
 */
export async function countSignUps<K extends CountKey>(
  db: Kysely<Tables>,
  by: readonly K[],
  { since = '', marketingIds, repeats = false }: CountFilter = {},
): Promise<SignUpCount<K>[]> {
  if (marketingIds?.length === 0) return [];
  const deleted = db
    .selectFrom('sign_up_totals')
    .where('day', '>=', since.slice(0, 10))
    .$if(marketingIds !== undefined, (q) => q.where('marketing_id', 'in', marketingIds!))
    .select([...countKeys, ...countColumns]);
  const all = storedCounts(db, { since, marketingIds, repeats }).unionAll(deleted);
  const rows = await db
    .selectFrom(all.as('counted'))
    .select((eb) => [
      ...countKeys,
      ...countColumns.map((column) => eb.fn.sum<number | string>(column).as(column)),
    ])
    .groupBy([...countKeys])
    .execute();
  // Grouped once in SQL by every key (one statement for every caller), then by the keys asked.
  const groups = new Map<string, SignUpCount<K>>();
  for (const row of rows) {
    const key = JSON.stringify(by.map((column) => row[column]));
    let group = groups.get(key);
    if (group === undefined) {
      group = Object.fromEntries(countColumns.map((column) => [column, 0])) as SignUpCount<K>;
      for (const column of by) {
        (group as unknown as Record<CountKey, string | null>)[column] =
          row[column] === '' ? null : row[column];
      }
      groups.set(key, group);
    }
    // PostgreSQL's sum is a bigint or numeric, which pg gives as text.
    for (const column of countColumns) group[column] += Number(row[column]);
  }
  return [...groups.values()].filter((group) => group.leads > 0 || group.repeats > 0);
}
