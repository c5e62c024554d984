import { createRequire } from 'node:module';
import {
  expressionBuilder,
  sql,
  type AliasableExpression,
  type AliasedExpression,
  type Expression,
  type Kysely,
} from 'kysely';
import { textTable } from '../db/dialect';
import type { LeadFlag, LeadFlagsTable, RegistrationsTable, Tables } from '../db/schema';

// The package is CommonJS with an object of functions: Node's ESM import finds no named exports.
const { blacklist } = createRequire(import.meta.url)('mailchecker') as typeof import('mailchecker');

/** The thresholds of the flags (docs/flags.md), as the server's settings give them. */
export interface FlagSettings {
  /** contested: an earlier lead of the phone, of another marketer, within this many days. */
  contestedDays: number;
  /** burst: a lead past this many of its link's leads within burstMinutes. */
  burstLeads: number;
  burstMinutes: number;
  /** same_address: a lead past this many of its link's leads from its address in a UTC day. */
  sameAddressLeads: number;
  /** fast: sent less than this many seconds after its form was served. */
  fastSeconds: number;
}

export const defaultFlagSettings: FlagSettings = {
  contestedDays: 90,
  burstLeads: 20,
  burstMinutes: 10,
  sameAddressLeads: 3,
  fastSeconds: 2,
};

const dayMs = 24 * 60 * 60 * 1000;

type Row = Pick<
  RegistrationsTable,
  | 'id'
  | 'created_at'
  | 'email'
  | 'phone'
  | 'marketing_id'
  | 'package_key'
  | 'address_hash'
  | 'served_at'
>;

/** A lead earlier in the batch, for contested. */
export type EarlierLead = Pick<RegistrationsTable, 'id' | 'marketing_id' | 'created_at'>;

/**
 * A lead of the batch, with what contested needs: the earliest stored lead of its phone of
 * another marketer in the window (`storedContestedQuery`, read with the batch's repeat rule),
 * and the leads of its phone earlier in the batch.
 */
export interface CheckedLead {
  row: Row;
  storedContested: string | null;
  earlierInBatch: readonly EarlierLead[];
}

/** A lead's flag, as lead_flags stores it. */
export type LeadFlagRow = Pick<LeadFlagsTable, 'registration_id' | 'flag' | 'other_id'>;

/** The checks of new leads, with what they remember between batches. */
export interface FlagChecks {
  /** The start of contested's window for a lead sent at `at` (an ISO time). */
  contestedSince(at: string): string;
  /**
   * contested as far as the stored leads go, as a subquery of the batch's read: the id of the
   * earliest lead of `phone`, of a marketer other than `marketer` ('' for a general link), after
   * `since` (`contestedSince` of the lead's time), or null. Looked up per lead through the
   * (phone, notes, created_at) index by its first column.
   */
  storedContestedQuery(
    trx: Kysely<Tables>,
    phone: Expression<string>,
    marketer: Expression<string>,
    since: Expression<string>,
  ): AliasableExpression<string | null>;
  /**
   * The flags of a batch's leads, in the batch's transaction, which holds the lock of each
   * phone, so that what was read of the stored leads is every lead of those phones committed.
   * `leads` are in the order they are stored. The caller stores the flags with the rows.
   */
  flagLeads(trx: Kysely<Tables>, leads: readonly CheckedLead[]): Promise<LeadFlagRow[]>;
}

/**
 * The checks under `settings`. Each reads one query a batch at most, whatever its size, reading
 * a bounded number of index entries a link; contested's read is a subquery of the batch's read
 * of its phones. A link or address found past its threshold is remembered while what was read
 * still proves it (the leads were committed), so that a link pouring in thousands of leads is
 * read once in a while, not at every batch.
 */
export function createFlagChecks(settings: FlagSettings): FlagChecks {
  const burstLinks = new Saturated();
  const sameAddressLinks = new Saturated();
  const burstReads = groupReads(settings.burstLeads, 'open');
  const sameAddressReads = groupReads(settings.sameAddressLeads, 'day');
  return {
    contestedSince: (at) => minus(at, settings.contestedDays * dayMs),
    storedContestedQuery: (trx, phone, marketer, since) =>
      trx
        .selectFrom('registrations as lead')
        .select('lead.id')
        .where('lead.phone', '=', phone)
        .where('lead.repeat_of', 'is', null)
        // Stored is already a lead, though another instance's clock may have given it a later
        // time than this one's: the lock of the phone made them take turns.
        .where('lead.created_at', '>', since)
        .where(sql<string>`coalesce(${sql.ref('lead.marketing_id')}, '')`, '<>', marketer)
        .orderBy('lead.created_at')
        .limit(1)
        .$asScalar(),
    async flagLeads(trx, checked) {
      const leads = checked.map(({ row }) => row);
      return [
        ...checked.flatMap((lead) => contested(lead, settings)),
        ...(await burst(trx, leads, settings, burstLinks, burstReads)),
        ...(await sameAddress(trx, leads, settings, sameAddressLinks, sameAddressReads)),
        ...leads.filter((lead) => isFast(lead, settings)).map((lead) => flag(lead, 'fast')),
        ...leads.filter(hasDisposableEmail).map((lead) => flag(lead, 'disposable_email')),
      ];
    },
  };
}

// Past this many groups remembered, the oldest knowledge goes: it is only a shortcut.
const maxSaturated = 10_000;

/**
 * Groups (a link, or a link and address on a day) known to have at least the threshold of
 * stored leads from a time on: the oldest of the newest `threshold` found.
 */
class Saturated {
  private readonly since = new Map<string, string>();

  /** Whether the group had `threshold` stored leads after `from`, as far as is known. */
  has(key: string, from: string): boolean {
    const since = this.since.get(key);
    return since !== undefined && since > from;
  }

  remember(key: string, since: string) {
    if (this.since.size >= maxSaturated) this.since.clear();
    this.since.set(key, since);
  }
}

/** A flag that names no other lead (all but contested). */
const flag = (lead: Row, name: LeadFlag): LeadFlagRow => ({
  registration_id: lead.id,
  flag: name,
  other_id: null,
});

const minus = (at: string, ms: number) => new Date(Date.parse(at) - ms).toISOString();

/**
 * contested: the phone is already a lead, under any notes, of another marketer or of a general
 * link, within contestedDays before it. The flag names the earliest such lead (the one that
 * brought the person first): a stored one, else one earlier in the batch.
 */
function contested(
  { row, storedContested, earlierInBatch }: CheckedLead,
  { contestedDays }: FlagSettings,
): LeadFlagRow[] {
  const since = minus(row.created_at, contestedDays * dayMs);
  const other =
    storedContested ??
    earlierInBatch.find((lead) => lead.marketing_id !== row.marketing_id && lead.created_at > since)
      ?.id;
  return other === undefined
    ? []
    : [{ registration_id: row.id, flag: 'contested', other_id: other }];
}

/**
 * burst: the lead's link (marketer and package) has more than burstLeads leads in the
 * burstMinutes up to it, itself included: the leads past the threshold are flagged.
 */
async function burst(
  trx: Kysely<Tables>,
  leads: Row[],
  { burstLeads, burstMinutes }: FlagSettings,
  saturated: Saturated,
  reads: GroupReads,
): Promise<LeadFlagRow[]> {
  const windowMs = burstMinutes * 60_000;
  const linkOf = (lead: Row) => JSON.stringify([lead.marketing_id, lead.package_key]);
  return flagPastThreshold(
    trx,
    leads,
    burstLeads,
    'burst',
    saturated,
    linkOf,
    (lead) => ({
      marketingId: lead.marketing_id,
      packageKey: lead.package_key,
      from: minus(lead.created_at, windowMs),
    }),
    reads,
  );
}

/**
 * same_address: more than sameAddressLeads leads of the lead's link came from its address on
 * its UTC day. A carrier's NAT puts many phones behind one address, hence a count per link and
 * day, not per address alone; a lead whose address is unknown is not checked.
 */
async function sameAddress(
  trx: Kysely<Tables>,
  leads: Row[],
  { sameAddressLeads }: FlagSettings,
  saturated: Saturated,
  reads: GroupReads,
): Promise<LeadFlagRow[]> {
  const dayOf = (lead: Row) => lead.created_at.slice(0, 10);
  const keyOf = (lead: Row) =>
    JSON.stringify([lead.marketing_id, lead.package_key, lead.address_hash, dayOf(lead)]);
  return flagPastThreshold(
    trx,
    leads.filter((lead) => lead.address_hash !== ''),
    sameAddressLeads,
    'same_address',
    saturated,
    keyOf,
    (lead) => ({
      marketingId: lead.marketing_id,
      packageKey: lead.package_key,
      addressHash: lead.address_hash,
      from: dayOf(lead),
      to: new Date(Date.parse(dayOf(lead)) + dayMs).toISOString(),
    }),
    reads,
  );
}

/**
 * Which stored leads a lead is counted with: its link's (and address's) after `from`, and
 * before `to` when set. `from` may be a bare day (2026-03-01), which sorts before its times.
 */
interface Group {
  marketingId: string | null;
  packageKey: string | null;
  addressHash?: string;
  from: string;
  to?: string;
}

/**
 * Flags each lead that has at least `threshold` leads of its group before it: the stored ones,
 * counted up to the threshold alone (so that a link of thousands a day reads `threshold` index
 * entries, not thousands), then the batch's earlier ones. A batch's sign-ups came within
 * moments of each other: each group is counted from its earliest lead's start. A group known
 * to be past the threshold since after that start is not read again.
 */
async function flagPastThreshold(
  trx: Kysely<Tables>,
  leads: Row[],
  threshold: number,
  name: LeadFlag,
  saturated: Saturated,
  keyOf: (lead: Row) => string,
  groupOf: (lead: Row) => Group,
  reads: GroupReads,
): Promise<LeadFlagRow[]> {
  const groups = new Map<string, Group>();
  for (const lead of leads) {
    const group = groupOf(lead);
    const known = groups.get(keyOf(lead));
    if (known === undefined || group.from < known.from) groups.set(keyOf(lead), group);
  }
  const unknown = [...groups].filter(([key, group]) => !saturated.has(key, group.from));
  const stored = new Map<string, number>();
  for (const [key, group] of groups) if (saturated.has(key, group.from)) stored.set(key, threshold);
  const counts = await readGroups(trx, unknown, reads.count);
  for (const [key, count] of counts) stored.set(key, Number(count));
  // Newly past the threshold (once a window, for a link that stays busy): from when on.
  const full = unknown.filter(([key]) => Number(counts.get(key)) >= threshold);
  for (const [key, oldest] of await readGroups(trx, full, reads.oldest)) {
    if (oldest !== null) saturated.remember(key, String(oldest));
  }
  const flags: LeadFlagRow[] = [];
  for (const lead of leads) {
    const key = keyOf(lead);
    const before = stored.get(key) ?? 0;
    if (before >= threshold) flags.push(flag(lead, name));
    stored.set(key, before + 1);
  }
  return flags;
}

/** The columns readGroups sends of each group, as text ('' for none). */
const groupColumns = [
  'key',
  'marketing_id',
  'package_key',
  'since',
  'until',
  'address_hash',
] as const;
const sentColumn = (name: (typeof groupColumns)[number]) => sql.ref<string>(`sent.${name}`);

/** How readGroups reads a group's stored leads, by what it reads and whose link. */
type GroupReads = Record<
  'count' | 'oldest',
  Record<'marketer' | 'general', AliasedExpression<number | string | null, 'value'>>
>;

/**
 * The subqueries of readGroups for a check: of a group's stored leads, up to `threshold` of them
 * (the newest, in a window without an end; `until` and `address_hash` when `day`), how many or
 * the oldest. Each runs once per group through the index that starts with marketing_id, or
 * with address_hash, stopped at the threshold. Built once, not per batch: building them took a
 * sign-up on SQLite longer than running them (docs/performance.md).
 */
function groupReads(threshold: number, window: 'open' | 'day'): GroupReads {
  const tables = expressionBuilder<Tables>();
  const leads = (general: boolean) => {
    let query = tables
      .selectFrom('registrations as lead')
      .select('lead.created_at')
      .where((w) =>
        general
          ? w('lead.marketing_id', 'is', null)
          : w('lead.marketing_id', '=', sentColumn('marketing_id')),
      )
      // The package as '' for none: compared as a filter on the index's entries, on both
      // databases alike, where a null would need each database's own "is not distinct from".
      .where(
        sql<string>`coalesce(${sql.ref('lead.package_key')}, '')`,
        '=',
        sentColumn('package_key'),
      )
      .where('lead.repeat_of', 'is', null)
      .where('lead.created_at', '>', sentColumn('since'));
    // A window without an end is read from its newest lead, backwards along the index.
    query =
      window === 'open'
        ? query.orderBy('lead.created_at', 'desc')
        : query
            .where('lead.created_at', '<', sentColumn('until'))
            .where('lead.address_hash', '=', sentColumn('address_hash'));
    // A literal, not a parameter (the threshold is a setting): SQLite runs a statement whose
    // subquery in FROM has a bound LIMIT some 50 µs slower each time (docs/performance.md).
    return tables.selectFrom(query.limit(sql.lit(threshold)).as('found'));
  };
  const count = (general: boolean) =>
    leads(general)
      .select((c) => c.fn.countAll<number | string>().as('value'))
      .$asScalar()
      .as('value');
  const oldest = (general: boolean) =>
    leads(general)
      .select((c) => c.fn.min<string | null>('found.created_at').as('value'))
      .$asScalar()
      .as('value');
  return {
    count: { marketer: count(false), general: count(true) },
    oldest: { marketer: oldest(false), general: oldest(true) },
  };
}

/**
 * Of each group's stored leads, `read` (groupReads): one statement for the groups of
 * marketers' links, one for those of general links (no marketer). A union of one select a group
 * would cost the planning of each.
 */
async function readGroups(
  trx: Kysely<Tables>,
  groups: [string, Group][],
  read: GroupReads['count' | 'oldest'],
): Promise<Map<string, number | string | null>> {
  const found = new Map<string, number | string | null>();
  for (const general of [false, true]) {
    const some = groups.filter(([, group]) => (group.marketingId === null) === general);
    if (some.length === 0) continue;
    const sent = textTable(
      trx,
      groupColumns,
      some.map(([key, group]) => [
        key,
        group.marketingId ?? '',
        group.packageKey ?? '',
        group.from,
        group.to ?? '',
        group.addressHash ?? '',
      ]),
    ).as('sent');
    const rows = await trx
      .selectFrom(sent)
      .select(['sent.key', general ? read.general : read.marketer])
      .execute();
    for (const row of rows) found.set(row.key, row.value);
  }
  return found;
}

/** fast: sent less than fastSeconds after its form was served (a stamp of the future is bad). */
function isFast(lead: Row, { fastSeconds }: FlagSettings): boolean {
  if (lead.served_at === null) return false;
  const elapsed = Date.parse(lead.created_at) - Date.parse(lead.served_at);
  return elapsed >= 0 && elapsed < fastSeconds * 1000;
}

/** disposable_email: the e-mail's domain, or a domain it is under, is a throwaway one. */
function hasDisposableEmail(lead: Row): boolean {
  const domain = lead.email?.slice(lead.email.lastIndexOf('@') + 1).toLowerCase();
  if (domain === undefined || domain === '') return false;
  const list = blacklist();
  const labels = domain.split('.');
  return labels.some((_, index) => list.has(labels.slice(index).join('.')));
}
