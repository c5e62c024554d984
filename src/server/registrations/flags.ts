import { createRequire } from 'node:module';
import { sql, type Kysely } from 'kysely';
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
// SQLite takes at most 500 selects in one union; a batch rarely has more than a few links.
const selectsPerUnion = 500;
// lead_flags has 3 values a row: far below either database's limit on parameters.
const flagsPerInsert = 5_000;

type Row = Pick<
  RegistrationsTable,
  | 'id'
  | 'created_at'
  | 'email'
  | 'phone'
  | 'marketing_id'
  | 'package_key'
  | 'repeat_of'
  | 'address_hash'
  | 'served_at'
>;

/**
 * Checks each lead of a batch (a repeat is not checked) and stores its flags, in the batch's
 * transaction, which holds the lock of each phone: the leads read here are every lead of those
 * phones committed, and a lead earlier in the batch counts as a stored one. One query a check,
 * whatever the batch's size, each reading a bounded number of index entries a phone or link.
 * `rows` are in the order they are stored.
 */
export async function flagLeads(
  trx: Kysely<Tables>,
  rows: readonly Row[],
  settings: FlagSettings,
): Promise<void> {
  const leads = rows.filter((row) => row.repeat_of === null);
  if (leads.length === 0) return;
  const flags: LeadFlagsTable[] = [
    ...(await contested(trx, leads, settings)),
    ...(await burst(trx, leads, settings)),
    ...(await sameAddress(trx, leads, settings)),
    ...leads.filter((lead) => isFast(lead, settings)).map((lead) => flag(lead, 'fast')),
    ...leads.filter(hasDisposableEmail).map((lead) => flag(lead, 'disposable_email')),
  ];
  for (let start = 0; start < flags.length; start += flagsPerInsert) {
    await trx
      .insertInto('lead_flags')
      .values(flags.slice(start, start + flagsPerInsert))
      .execute();
  }
}

const flag = (lead: Row, name: LeadFlag, otherId: string | null = null): LeadFlagsTable => ({
  registration_id: lead.id,
  flag: name,
  other_id: otherId,
});

const minus = (at: string, ms: number) => new Date(Date.parse(at) - ms).toISOString();

/**
 * contested: the phone is already a lead, under any notes, of another marketer or of a general
 * link (null is a marketer of its own here), within contestedDays before it. The flag names the
 * earliest such lead: the one that brought the person first.
 */
async function contested(
  trx: Kysely<Tables>,
  leads: Row[],
  { contestedDays }: FlagSettings,
): Promise<LeadFlagsTable[]> {
  const windowMs = contestedDays * dayMs;
  // Each phone with the start of its earliest lead's window, looked up through the
  // (phone, notes, created_at) index by its first column.
  const since = new Map<string, string>();
  for (const lead of leads) {
    const start = minus(lead.created_at, windowMs);
    const known = since.get(lead.phone);
    if (known === undefined || start < known) since.set(lead.phone, start);
  }
  const sent = sql<{ column1: string; column2: string }>`(values ${sql.join(
    [...since].map(([phone, start]) => sql`(${phone}, ${start})`),
  )})`.as('sent');
  const earlier: Pick<Row, 'id' | 'phone' | 'marketing_id' | 'created_at'>[] = await trx
    .selectFrom('registrations as lead')
    .innerJoin(sent, (join) =>
      join.onRef('lead.phone', '=', 'sent.column1').onRef('lead.created_at', '>', 'sent.column2'),
    )
    .select(['lead.id', 'lead.phone', 'lead.marketing_id', 'lead.created_at'])
    .where('lead.repeat_of', 'is', null)
    .orderBy('lead.created_at')
    .execute();
  const flags: LeadFlagsTable[] = [];
  for (const lead of leads) {
    const start = minus(lead.created_at, windowMs);
    const other = earlier.find(
      (e) =>
        e.phone === lead.phone &&
        e.marketing_id !== lead.marketing_id &&
        e.created_at > start &&
        e.created_at <= lead.created_at,
    );
    if (other !== undefined) flags.push(flag(lead, 'contested', other.id));
    earlier.push(lead);
  }
  return flags;
}

/**
 * burst: the lead's link (marketer and package) has more than burstLeads leads in the
 * burstMinutes up to it, itself included: the leads past the threshold are flagged.
 */
async function burst(
  trx: Kysely<Tables>,
  leads: Row[],
  { burstLeads, burstMinutes }: FlagSettings,
): Promise<LeadFlagsTable[]> {
  const windowMs = burstMinutes * 60_000;
  const linkOf = (lead: Row) => JSON.stringify([lead.marketing_id, lead.package_key]);
  return flagPastThreshold(trx, leads, burstLeads, 'burst', linkOf, (lead) => ({
    marketingId: lead.marketing_id,
    packageKey: lead.package_key,
    from: minus(lead.created_at, windowMs),
    to: undefined,
  }));
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
): Promise<LeadFlagsTable[]> {
  const dayOf = (lead: Row) => lead.created_at.slice(0, 10);
  const keyOf = (lead: Row) =>
    JSON.stringify([lead.marketing_id, lead.package_key, lead.address_hash, dayOf(lead)]);
  return flagPastThreshold(
    trx,
    leads.filter((lead) => lead.address_hash !== ''),
    sameAddressLeads,
    'same_address',
    keyOf,
    (lead) => ({
      marketingId: lead.marketing_id,
      packageKey: lead.package_key,
      addressHash: lead.address_hash,
      from: dayOf(lead),
      to: new Date(Date.parse(dayOf(lead)) + dayMs).toISOString(),
    }),
  );
}

/** Which stored leads a lead is counted with: its link's (and address's) within [from, to). */
interface Group {
  marketingId: string | null;
  packageKey: string | null;
  addressHash?: string;
  /** Exclusive for a window that ends at the lead, inclusive for a day. */
  from: string;
  to: string | undefined;
}

/**
 * Flags each lead that has at least `threshold` leads of its group before it: the stored ones,
 * counted up to the threshold alone (so that a link of thousands a day reads `threshold` index
 * entries, not thousands), then the batch's earlier ones. A batch's sign-ups came within
 * moments of each other: each group is counted from its earliest lead's start.
 */
async function flagPastThreshold(
  trx: Kysely<Tables>,
  leads: Row[],
  threshold: number,
  name: LeadFlag,
  keyOf: (lead: Row) => string,
  groupOf: (lead: Row) => Group,
): Promise<LeadFlagsTable[]> {
  const groups = new Map<string, Group>();
  for (const lead of leads) {
    const group = groupOf(lead);
    const known = groups.get(keyOf(lead));
    if (known === undefined || group.from < known.from) groups.set(keyOf(lead), group);
  }
  const keys = [...groups.keys()];
  const stored = new Map<string, number>();
  for (let start = 0; start < keys.length; start += selectsPerUnion) {
    const counts = keys.slice(start, start + selectsPerUnion).map((key, index) => {
      const group = groups.get(key) as Group;
      let found = trx
        .selectFrom('registrations')
        .select(sql.lit(1).as('one'))
        .where('marketing_id', group.marketingId === null ? 'is' : '=', group.marketingId)
        .where('package_key', group.packageKey === null ? 'is' : '=', group.packageKey)
        .where('repeat_of', 'is', null);
      found =
        group.to === undefined
          ? found.where('created_at', '>', group.from)
          : found.where('created_at', '>=', group.from).where('created_at', '<', group.to);
      if (group.addressHash !== undefined) {
        found = found.where('address_hash', '=', group.addressHash);
      }
      return trx
        .selectFrom(found.limit(threshold).as('found'))
        .select((eb) => [sql.lit(start + index).as('key'), eb.fn.countAll().as('count')]);
    });
    const [first, ...rest] = counts;
    if (first === undefined) continue;
    const rowsOfUnion = await rest.reduce((union, next) => union.unionAll(next), first).execute();
    for (const row of rowsOfUnion) stored.set(keys[Number(row.key)] ?? '', Number(row.count));
  }
  const flags: LeadFlagsTable[] = [];
  for (const lead of leads) {
    const key = keyOf(lead);
    const before = stored.get(key) ?? 0;
    if (before >= threshold) flags.push(flag(lead, name));
    stored.set(key, before + 1);
  }
  return flags;
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
