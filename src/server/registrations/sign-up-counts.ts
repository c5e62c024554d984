import { sql, type Expression, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { LeadStatus } from '../../domain/lead-status';
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
// The lead's link or campaign, '' for none: what a count is kept by, with the day. Both
// queries below name the lead's row `lead`.
const leadKey = (column: Exclude<CountKey, 'day'> & keyof RegistrationsTable) =>
  sql<string>`coalesce(${sql.ref(`lead.${column}`)}, '')`;

/** Which stored sign-ups a count reads, and by which keys it groups them. */
interface Stored {
  since: string;
  marketingIds?: readonly string[];
  /** Only these (a deletion's, counted before they go). */
  ids?: SelectQueryBuilder<Tables, 'registrations', { id: string }>;
  repeats: boolean;
  /** Every key unless given: what a deletion keeps. */
  by?: readonly CountKey[];
}

// Of the leads of a group, those whose status is now `status`.
const withStatus = (status: LeadStatus) =>
  sql<number>`sum(case when ${sql.ref('lead.status')} = ${sql.lit(status)} then 1 else 0 end)`;
const none = () => outcomeColumns.map((column) => sql<number>`0`.as(column));

/**
 * Stored sign-ups by the day each was made and its lead's link and campaign (or those of the
 * keys `by`): leads (first rows) with their outcomes, and repeats. What countSignUps adds to the
 * kept counts, and what a deletion keeps (registrations/personal-data.ts), so that a lead is
 * counted one way before and after. The columns are the keys in countKeys' order, then
 * countColumns (the unions need one order).
 */
export function storedCounts(
  db: Kysely<Tables>,
  { since, marketingIds, ids, repeats, by = countKeys }: Stored,
) {
  const keys = countKeys.filter((key) => by.includes(key));
  // The row whose time is the submission's day: the lead's own, or the repeat's.
  const keyOf = (submission: 'lead' | 'r', key: CountKey) =>
    key === 'day' ? day(sql.ref(`${submission}.created_at`)) : leadKey(key);
  const grouped = (submission: 'lead' | 'r') => keys.map((key) => keyOf(submission, key));
  // A lead is its own lead: read alone, through the marketer's covering index.
  const leads = db
    .selectFrom('registrations as lead')
    .where('lead.repeat_of', 'is', null)
    .where('lead.created_at', '>=', since)
    .$if(marketingIds !== undefined, (q) => q.where('lead.marketing_id', 'in', marketingIds!))
    .$if(ids !== undefined, (q) => q.where('lead.id', 'in', ids!))
    .select((eb) => [
      ...keys.map((key) => keyOf('lead', key).as(key)),
      eb.fn.countAll<number>().as('leads'),
      sql<number>`0`.as('repeats'),
      ...outcomeColumns.map((column) => withStatus(outcomes[column]).as(column)),
    ])
    .groupBy(grouped('lead'));
  if (!repeats) return leads;
  return leads.unionAll(
    db
      .selectFrom('registrations as r')
      .innerJoin('registrations as lead', 'lead.id', 'r.repeat_of')
      .where('r.created_at', '>=', since)
      .$if(marketingIds !== undefined, (q) => q.where('lead.marketing_id', 'in', marketingIds!))
      .$if(ids !== undefined, (q) => q.where('r.id', 'in', ids!))
      .select((eb) => [
        ...keys.map((key) => keyOf('r', key).as(key)),
        sql<number>`0`.as('leads'),
        eb.fn.countAll<number>().as('repeats'),
        ...none(),
      ])
      .groupBy(grouped('r')),
  );
}

/**
 * The one count of a lead: stored sign-ups (storedCounts), plus the counts kept for deleted ones
 * (sign_up_totals), grouped by the keys `by`; a link's campaigns past the day's limit count as
 * otherCampaign (campaigns.ts). The report per link and per campaign and a marketer's numbers all
 * count with it, so that they agree, also after a retention purge.
 */
export async function countSignUps<K extends CountKey>(
  db: Kysely<Tables>,
  by: readonly K[],
  { since = '', marketingIds, repeats = false }: CountFilter = {},
): Promise<SignUpCount<K>[]> {
  if (marketingIds?.length === 0) return [];
  // In countKeys' order, as storedCounts gives them.
  const asked = countKeys.filter((key) => (by as readonly CountKey[]).includes(key));
  // A link's campaigns of a day are bounded (campaigns.ts) wherever they are counted by, which
  // needs every key; any other count is grouped in SQL by the keys asked alone (a team's fifty
  // marketers are fifty rows, not thousands).
  const byCampaign = asked.includes('utm_source') || asked.includes('utm_campaign');
  const keys = byCampaign ? countKeys : asked;
  const deleted = db
    .selectFrom('sign_up_totals')
    .where('day', '>=', since.slice(0, 10))
    .$if(marketingIds !== undefined, (q) => q.where('marketing_id', 'in', marketingIds!))
    .select([...keys, ...countColumns]);
  const all = storedCounts(db, { since, marketingIds, repeats, by: keys }).unionAll(deleted);
  const rows = await db
    .selectFrom(all.as('counted'))
    .select((eb) => [
      ...keys,
      ...countColumns.map((column) => eb.fn.sum<number | string>(column).as(column)),
    ])
    .$if(keys.length > 0, (q) => q.groupBy([...keys]))
    .execute();
  const counted = rows.map((row) => {
    const group = {} as Record<string, string | number>;
    for (const key of keys) group[key] = row[key];
    // PostgreSQL's sum is a bigint or numeric, which pg gives as text.
    for (const column of countColumns) group[column] = Number(row[column] ?? 0);
    return group as Record<CountKey, string> & Counted;
  });
  const bounded = byCampaign
    ? foldCampaigns(counted, (row) => JSON.stringify([row.day, row.marketing_id, row.package_key]))
    : counted;
  // Then by the keys asked (campaigns folded into otherCampaign become one group).
  const groups = new Map<string, SignUpCount<K>>();
  for (const row of bounded) {
    const key = JSON.stringify(asked.map((column) => row[column]));
    let group = groups.get(key);
    if (group === undefined) {
      const created = {} as Record<string, string | number | null>;
      for (const column of asked) created[column] = row[column] === '' ? null : row[column];
      for (const column of countColumns) created[column] = 0;
      group = created as unknown as SignUpCount<K>;
      groups.set(key, group);
    }
    for (const column of countColumns) group[column] += row[column];
  }
  return [...groups.values()].filter((group) => group.leads > 0 || group.repeats > 0);
}
