import { readFileSync } from 'node:fs';
import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { LeadStatus } from '../domain/lead-status';
import { campaignsPerLinkDay, otherCampaign } from './campaigns';
import type { RegistrationsTable, Tables } from './db/schema';

// The one count of visits and leads (docs/architecture.md has the words): the report per link
// and per campaign and the marketers' and team leaders' numbers all read it, so that they agree,
// also after a retention purge or an erasure.

/**
 * The count's rules as they run: this module's code (built, the chunk that holds it). The kept
 * days (count-rollups.ts) were counted by one version of it, and are counted again by another.
 */
export const countRules = readFileSync(new URL(import.meta.url), 'utf8');

/** What a count can be split by: the UTC day, the link (marketer and package), the campaign. */
export const countKeys = [
  'day',
  'marketing_id',
  'package_key',
  'utm_source',
  'utm_campaign',
] as const;
export type CountKey = (typeof countKeys)[number];

/**
 * Visits (at most one a visitor, link and day) and unique visitors (each day's, added up: the
 * visitor hash rotates daily, so days cannot be joined).
 */
export const visitColumns = ['visits', 'unique_visitors'] as const;

/**
 * Leads, repeats, and of the leads those whose status is now each outcome (a lead counts on the
 * day it signed up, whenever its status changed); the leads with a flag (docs/flags.md), and
 * those whose latest decision is "not credited", which are counted there and in none of the
 * others (nor their outcomes). What sign_up_totals keeps of deleted sign-ups.
 */
export const keptColumns = [
  'leads',
  'repeats',
  'contacted',
  'qualified',
  'clients',
  'lost',
  'flagged',
  'not_credited',
] as const;

/**
 * keptColumns, and the flagged leads with no decision yet: those awaiting review, which a
 * deleted lead never is.
 */
export const signUpColumns = [...keptColumns, 'awaiting_review'] as const;

export const countColumns = [...visitColumns, ...signUpColumns] as const;

/** The outcome columns, and the lead status each counts. */
export const outcomes = {
  contacted: 'contacted',
  qualified: 'qualified',
  clients: 'client',
  lost: 'lost',
} as const satisfies Record<string, LeadStatus>;
export const outcomeColumns = Object.keys(outcomes) as (keyof typeof outcomes)[];

export type VisitCounts = Record<(typeof visitColumns)[number], number>;
export type SignUpCounts = Record<(typeof signUpColumns)[number], number>;
export type Counts = VisitCounts & SignUpCounts;

type Keyed<K extends CountKey> = { [Key in K]: string | null };
/** One group's counts; a key's null means none (no marketer, the free trial, no campaign). */
export type Count<K extends CountKey> = Keyed<K> & Counts;

export interface CountFilter {
  /** From this time on (ISO). Visits and deleted sign-ups are kept per day: from its day on. */
  since?: string;
  /** Before this UTC day (YYYY-MM-DD); no end when absent. */
  until?: string;
  /** Only these marketers' links (a repeat counts for its lead's marketer). */
  marketingIds?: readonly string[];
  /** Count repeats too; without it they are left out (they cost a join). */
  repeats?: boolean;
}

/**
 * Marketer ids in the order a person reads them (2 before 10). One collator: localeCompare with
 * options builds one a call, a fifth of the programme's answer when 2,000 marketers tie.
 */
export const compareIds = new Intl.Collator('en', { numeric: true }).compare;

/** Visits and leads side by side, grouped by the keys `by`. */
export async function countAll<K extends CountKey>(
  db: Kysely<Tables>,
  by: readonly K[],
  filter: CountFilter = {},
): Promise<Count<K>[]> {
  return withNulls(await count(db, by, filter), by) as Count<K>[];
}

/** A count as it is kept: countAll's rows with '' for a key's none (count-rollups.ts). */
export function countKept(
  db: Kysely<Tables>,
  by: readonly CountKey[],
  filter: CountFilter = {},
): Promise<KeptCount[]> {
  return count(db, by, filter);
}

type Row = Record<CountKey, string> & Counts;
/** A group's counts with '' for a key's none, as count_rollups keeps them. */
export type KeptCount = Partial<Record<CountKey, string>> & Counts;
/** Kept counts as a database sums them: PostgreSQL's sum is a bigint or numeric, given as text. */
export type SummedCount = Partial<Record<CountKey, string> & Record<keyof Counts, number | string>>;

/**
 * Reads visits and sign-ups by the keys asked. A campaign among them needs the rows with a
 * campaign by every key: a link's campaigns of a day are named, or are otherCampaign, by their
 * visits and leads together (foldCampaigns), so every count names the same ones. The rows
 * without a campaign are never folded, so they are read by the keys asked alone: most rows
 * have none, and grouping them by every key would make as many groups as rows. Groups with
 * nothing to count are left out.
 */
async function count(
  db: Kysely<Tables>,
  by: readonly CountKey[],
  { since = '', until, marketingIds, repeats = false }: CountFilter,
): Promise<KeptCount[]> {
  if (marketingIds?.length === 0) return [];
  const asked = countKeys.filter((key) => by.includes(key));
  const byCampaign = asked.includes('utm_source') || asked.includes('utm_campaign');
  const read = async (keys: readonly CountKey[], campaign?: boolean) => {
    const stored = { keys, since, until, marketingIds, repeats, campaign };
    // One query after the other: `db` may be a transaction, one connection that runs one at a
    // time (pg warns of queries sent to it at once, and its next major refuses them).
    const visits = await visitRows(db, stored);
    const signUps = await signUpRows(db, stored);
    return sumBy([...visits, ...signUps], keys);
  };
  const named = byCampaign ? foldCampaigns(await read(countKeys, true)) : await read(asked);
  const none = byCampaign ? await read(asked, false) : [];
  return sumBy([...named, ...none], asked).filter((row) =>
    countColumns.some((column) => row[column] > 0),
  );
}

/** Rows of counts as they are read and kept, '' for a key's none, added up by the keys `by`. */
export function addUpKept(rows: SummedCount[], by: readonly CountKey[]): KeptCount[] {
  return sumBy(
    rows,
    countKeys.filter((key) => by.includes(key)),
  );
}

/** Kept rows added up by the keys `by`, as countAll gives them (null for none). */
export function addUpCounts<K extends CountKey>(rows: SummedCount[], by: readonly K[]): Count<K>[] {
  return withNulls(addUpKept(rows, by), by) as Count<K>[];
}

/** Rows keyed by '' for none, keyed by null instead. */
function withNulls(rows: KeptCount[], keys: readonly CountKey[]) {
  return rows.map((row) => {
    const group = { ...row } as Record<string, string | number | null>;
    for (const key of keys) group[key] = row[key] === '' ? null : row[key]!;
    return group;
  });
}

/**
 * A group's id: its keys' values joined by NUL, which no stored value holds (the schema refuses
 * control characters). JSON.stringify of an array a row was a third of the keeper's time on the
 * event loop, in a profile.
 */
function keyOf(row: Partial<Record<CountKey, string | null>>, keys: readonly CountKey[]): string {
  let id = row[keys[0]!] ?? '';
  for (let index = 1; index < keys.length; index++) id += `\0${row[keys[index]!] ?? ''}`;
  return id;
}

/** Adds up rows by `keys` (the others dropped), every count column there, 0 where a row has none. */
function sumBy(rows: SummedCount[], keys: readonly CountKey[]): Row[] {
  const groups = new Map<string, Row>();
  for (const row of rows) {
    const id = keyOf(row, keys);
    let group = groups.get(id);
    if (group === undefined) {
      // Built a property at a time: Object.fromEntries made a group twice as slow to add to
      // (a sixth of the programme's answer, in a profile).
      group = {} as Row;
      for (const key of keys) group[key] = row[key]!;
      for (const column of countColumns) group[column] = 0;
      groups.set(id, group);
    }
    // PostgreSQL's sum is a bigint or numeric, which pg gives as text.
    for (const column of countColumns) group[column] += Number(row[column] ?? 0);
  }
  return [...groups.values()];
}

/**
 * Of each link's campaigns of a day, the campaignsPerLinkDay with the most leads keep their
 * names (ties by visits, then by name, so that every count agrees); the rest become
 * otherCampaign, visits and sign-ups alike. No campaign ('' and '') is never folded.
 */
export function foldCampaigns(rows: Row[]): Row[] {
  const campaignOf = (row: Row) => keyOf(row, ['utm_source', 'utm_campaign']);
  const linkOf = (row: Row) => keyOf(row, ['day', 'marketing_id', 'package_key']);
  // No campaign, and the campaigns already folded where they were written (visits past an
  // address's limit, or an erased person's own campaign), take no place among the named.
  const hasNone = (row: Row) =>
    (row.utm_source === '' && row.utm_campaign === '') || row.utm_source === otherCampaign;
  const byLink = new Map<string, Map<string, { leads: number; visits: number }>>();
  for (const row of rows) {
    if (hasNone(row)) continue;
    const campaigns = byLink.get(linkOf(row)) ?? new Map();
    const size = campaigns.get(campaignOf(row)) ?? { leads: 0, visits: 0 };
    size.leads += row.leads;
    size.visits += row.visits;
    campaigns.set(campaignOf(row), size);
    byLink.set(linkOf(row), campaigns);
  }
  const kept = new Set<string>();
  for (const [link, campaigns] of byLink) {
    const ranked = [...campaigns].sort(
      ([a, sizeA], [b, sizeB]) =>
        sizeB.leads - sizeA.leads || sizeB.visits - sizeA.visits || (a < b ? -1 : a > b ? 1 : 0),
    );
    for (const [campaign] of ranked.slice(0, campaignsPerLinkDay)) kept.add(link + campaign);
  }
  return rows.map((row) =>
    hasNone(row) || kept.has(linkOf(row) + campaignOf(row))
      ? row
      : { ...row, utm_source: otherCampaign, utm_campaign: otherCampaign },
  );
}

interface Stored {
  keys: readonly CountKey[];
  since: string;
  until?: string;
  marketingIds?: readonly string[];
  repeats: boolean;
  /** Only the rows with a campaign (true) or without one (false); both when undefined. */
  campaign?: boolean;
}

/** A condition on the rows of `table`: they have a campaign (true), or none (false). */
function withCampaign(table: string, campaign: boolean) {
  const column = (name: string) => sql`coalesce(${sql.ref(`${table}.${name}`)}, '')`;
  const some = sql`${column('utm_source')} <> '' or ${column('utm_campaign')} <> ''`;
  return campaign ? sql<SqlBool>`(${some})` : sql<SqlBool>`not (${some})`;
}

/** The finished days' visit totals and today's visitor rows, counted alike. */
function visitRows(db: Kysely<Tables>, { keys, since, until, marketingIds, campaign }: Stored) {
  const day = since.slice(0, 10);
  const days = db
    .selectFrom('visit_totals')
    .select([...countKeys, 'visits', 'visitors'])
    .where('day', '>=', day)
    .$if(until !== undefined, (q) => q.where('day', '<', until!))
    .$if(marketingIds !== undefined, (q) => q.where('marketing_id', 'in', marketingIds!))
    .$if(campaign !== undefined, (q) => q.where(withCampaign('visit_totals', campaign!)))
    .unionAll(
      // A visitor row is one visitor; its count the visits of rows from before a visit was one
      // a visitor, link and day.
      db
        .selectFrom('visits')
        .select((eb) => [...countKeys, eb.ref('count').as('visits'), sql<number>`1`.as('visitors')])
        .where('day', '>=', day)
        .$if(until !== undefined, (q) => q.where('day', '<', until!))
        .$if(marketingIds !== undefined, (q) => q.where('marketing_id', 'in', marketingIds!))
        .$if(campaign !== undefined, (q) => q.where(withCampaign('visits', campaign!))),
    )
    .as('days');
  return db
    .selectFrom(days)
    .select((eb) => [
      ...keys,
      eb.fn.sum<number | string>('visits').as('visits'),
      eb.fn.sum<number | string>('visitors').as('unique_visitors'),
    ])
    .$if(keys.length > 0, (q) => q.groupBy([...keys]))
    .execute();
}

/** Stored sign-ups (storedCounts) and the counts kept for deleted ones (sign_up_totals). */
function signUpRows(
  db: Kysely<Tables>,
  { keys, since, until, marketingIds, repeats, campaign }: Stored,
) {
  const deleted = db
    .selectFrom('sign_up_totals')
    .where('day', '>=', since.slice(0, 10))
    .$if(until !== undefined, (q) => q.where('day', '<', until!))
    .$if(marketingIds !== undefined, (q) => q.where('marketing_id', 'in', marketingIds!))
    .$if(campaign !== undefined, (q) => q.where(withCampaign('sign_up_totals', campaign!)))
    .select([...keys, ...keptColumns, sql<number>`0`.as('awaiting_review')]);
  const all = storedCounts(db, {
    since,
    until,
    marketingIds,
    repeats,
    by: keys,
    campaign,
  }).unionAll(deleted);
  return db
    .selectFrom(all.as('counted'))
    .select((eb) => [
      ...keys,
      ...signUpColumns.map((column) => eb.fn.sum<number | string>(column).as(column)),
    ])
    .$if(keys.length > 0, (q) => q.groupBy([...keys]))
    .execute();
}

const day = (createdAt: Expression<string>) => sql<string>`substr(${createdAt}, 1, 10)`;
// The lead's link or campaign, '' for none: what a count is kept by, with the day. Both
// queries below name the lead's row `lead`.
const leadKey = (column: Exclude<CountKey, 'day'> & keyof RegistrationsTable) =>
  sql<string>`coalesce(${sql.ref(`lead.${column}`)}, '')`;

/** Which stored sign-ups storedCounts reads, and by which keys it groups them. */
interface StoredSignUps {
  since: string;
  /** Made before this UTC day (YYYY-MM-DD); no end when absent. */
  until?: string;
  marketingIds?: readonly string[];
  /** Only these (a deletion's, counted before they go). */
  ids?: SelectQueryBuilder<Tables, 'registrations', { id: string }>;
  repeats: boolean;
  /** Every key unless given: what a deletion keeps. */
  by?: readonly CountKey[];
  /** Only the leads with a campaign (true) or without one (false); both when undefined. */
  campaign?: boolean;
}

// Of the leads of a group, those whose status is now `status`.
const withStatus = (status: LeadStatus) =>
  sql<number>`sum(case when ${sql.ref('lead.status')} = ${sql.lit(status)} then 1 else 0 end)`;
// Of the flagged leads of a group, those with no decision yet and a flag other than contested:
// a marketer's numbers must not tell whether a phone they sent was already another's lead
// before a programme role decides on it (docs/flags.md).
const undecided = sql<number>`sum(case when exists (select 1 from lead_reviews as decision where decision.registration_id = ${sql.ref('lead.id')}) then 0 when exists (select 1 from lead_flags as own where own.registration_id = ${sql.ref('lead.id')} and own.flag <> 'contested') then 1 else 0 end)`;
const zero = (columns: readonly (typeof signUpColumns)[number][]) =>
  columns.map((column) => sql<number>`0`.as(column));

/**
 * The leads whose latest decision is "not credited": read from the decisions alone (few, beside
 * the leads), each checked against the later ones of its lead through lead_reviews_registration.
 * A marketer's page lists them by it (leads/lead-reviews.ts), as they are counted.
 */
export function notCredited(db: Kysely<Tables>) {
  return db
    .selectFrom('lead_reviews as review')
    .select('review.registration_id')
    .where('review.credited', '=', 0)
    .where(({ eb, not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('lead_reviews as later')
            .select(sql<number>`1`.as('one'))
            .whereRef('later.registration_id', '=', 'review.registration_id')
            .where((later) =>
              later.or([
                later('later.reviewed_at', '>', eb.ref('review.reviewed_at')),
                later.and([
                  later('later.reviewed_at', '=', eb.ref('review.reviewed_at')),
                  later('later.id', '>', eb.ref('review.id')),
                ]),
              ]),
            ),
        ),
      ),
    );
}

/**
 * Stored sign-ups by the day each was made and its lead's link and campaign (or those of the
 * keys `by`): leads with their outcomes, and repeats. What a count reads, and what a deletion
 * keeps in sign_up_totals (registrations/personal-data.ts), so that a lead is counted one way
 * before and after. The columns are the keys in countKeys' order, then signUpColumns (the
 * unions need one order).
 */
export function storedCounts(
  db: Kysely<Tables>,
  { since, until, marketingIds, ids, repeats, by = countKeys, campaign }: StoredSignUps,
) {
  const keys = countKeys.filter((key) => by.includes(key));
  // The row whose time is the submission's day: the lead's own, or the repeat's.
  const keyOf = (submission: 'lead' | 'r', key: CountKey) =>
    key === 'day' ? day(sql.ref(`${submission}.created_at`)) : leadKey(key);
  const grouped = (submission: 'lead' | 'r') => keys.map((key) => keyOf(submission, key));
  const leadsOf = () =>
    db
      .selectFrom('registrations as lead')
      .where('lead.repeat_of', 'is', null)
      .where('lead.created_at', '>=', since)
      .$if(until !== undefined, (q) => q.where('lead.created_at', '<', until!))
      .$if(marketingIds !== undefined, (q) => q.where('lead.marketing_id', 'in', marketingIds!))
      .$if(ids !== undefined, (q) => q.where('lead.id', 'in', ids!))
      .$if(campaign !== undefined, (q) => q.where(withCampaign('lead', campaign!)));
  const keyed = () => keys.map((key) => keyOf('lead', key).as(key));
  // Every lead as it came, read alone through the marketer's covering index; then the flagged
  // leads and those not credited, each found through its own table (a set the database can
  // start from, rather than one look-up a lead), the latter taken back out of the leads and
  // their outcomes.
  const leads = leadsOf()
    .select((eb) => [
      ...keyed(),
      eb.fn.countAll<number>().as('leads'),
      sql<number>`0`.as('repeats'),
      ...outcomeColumns.map((column) => withStatus(outcomes[column]).as(column)),
      ...zero(['flagged', 'not_credited', 'awaiting_review']),
    ])
    .$if(keys.length > 0, (q) => q.groupBy(grouped('lead')))
    .unionAll(
      leadsOf()
        .where('lead.id', 'in', db.selectFrom('lead_flags').select('registration_id'))
        .select((eb) => [
          ...keyed(),
          ...zero(['leads', 'repeats', ...outcomeColumns]),
          eb.fn.countAll<number>().as('flagged'),
          sql<number>`0`.as('not_credited'),
          undecided.as('awaiting_review'),
        ])
        .$if(keys.length > 0, (q) => q.groupBy(grouped('lead'))),
    )
    .unionAll(
      leadsOf()
        .where('lead.id', 'in', notCredited(db))
        .select((eb) => [
          ...keyed(),
          sql<number>`-count(*)`.as('leads'),
          sql<number>`0`.as('repeats'),
          ...outcomeColumns.map((column) =>
            sql<number>`-${withStatus(outcomes[column])}`.as(column),
          ),
          sql<number>`0`.as('flagged'),
          eb.fn.countAll<number>().as('not_credited'),
          sql<number>`0`.as('awaiting_review'),
        ])
        .$if(keys.length > 0, (q) => q.groupBy(grouped('lead'))),
    );
  if (!repeats) return leads;
  return leads.unionAll(
    db
      .selectFrom('registrations as r')
      .innerJoin('registrations as lead', 'lead.id', 'r.repeat_of')
      .where('r.created_at', '>=', since)
      .$if(until !== undefined, (q) => q.where('r.created_at', '<', until!))
      .$if(marketingIds !== undefined, (q) => q.where('lead.marketing_id', 'in', marketingIds!))
      .$if(ids !== undefined, (q) => q.where('r.id', 'in', ids!))
      .$if(campaign !== undefined, (q) => q.where(withCampaign('lead', campaign!)))
      .select((eb) => [
        ...keys.map((key) => keyOf('r', key).as(key)),
        sql<number>`0`.as('leads'),
        eb.fn.countAll<number>().as('repeats'),
        ...zero([...outcomeColumns, 'flagged', 'not_credited', 'awaiting_review']),
      ])
      .$if(keys.length > 0, (q) => q.groupBy(grouped('r'))),
  );
}
