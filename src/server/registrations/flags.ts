import { createRequire } from 'node:module';
import {
  expressionBuilder,
  sql,
  type AliasableExpression,
  type AliasedExpression,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SqlBool,
} from 'kysely';
import { textTable } from '../db/dialect';
import type { LeadFlag, LeadFlagsTable, RegistrationsTable, Tables } from '../db/schema';

// The package is CommonJS with an object of functions: Node's ESM import finds no named exports.
const { blacklist } = createRequire(import.meta.url)('mailchecker') as typeof import('mailchecker');

/** The thresholds of the flags (docs/flags.md), as the server's settings give them. */
export interface FlagSettings {
  /** contested: an earlier lead of the phone, of another marketer, within this many days. */
  contestedDays: number;
  /** burst: a marketer's leads past this many within burstMinutes. */
  burstLeads: number;
  burstMinutes: number;
  /** same_address: a lead past this many of its marketer's leads from its address in a UTC day. */
  sameAddressLeads: number;
  /** fast: sent less than this many seconds after its form was served. */
  fastSeconds: number;
  /** reused_form: a form's stamp sent with more than this many leads. */
  formStampUses: number;
}

export const defaultFlagSettings: FlagSettings = {
  contestedDays: 90,
  burstLeads: 20,
  burstMinutes: 10,
  sameAddressLeads: 3,
  fastSeconds: 2,
  formStampUses: 5,
};

const dayMs = 24 * 60 * 60 * 1000;

type Row = Pick<
  RegistrationsTable,
  'id' | 'created_at' | 'email' | 'phone' | 'marketing_id' | 'address_hash' | 'served_at'
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

/** A lead stored before the batch and flagged by it (the start of a burst): it changed. */
export type FlaggedLater = Pick<RegistrationsTable, 'id' | 'created_at'>;

export interface Flagged {
  /** The batch's leads' flags, which the caller stores with the rows. */
  flags: LeadFlagRow[];
  /** Stored leads flagged now, their flags stored already. */
  stored: FlaggedLater[];
}

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
   * `leads` are in the order they are stored. A burst (or a reused form) newly found flags its
   * stored leads too, here.
   */
  flagLeads(trx: Kysely<Tables>, leads: readonly CheckedLead[]): Promise<Flagged>;
}

/**
 * The checks under `settings`. Each reads one query a batch at most, whatever its size, reading
 * a bounded number of index entries a group; contested's read is a subquery of the batch's read
 * of its phones. A group found past its threshold is remembered while what was read still
 * proves it (the leads were committed), so that a link pouring in thousands of leads is read
 * once in a while, not at every batch.
 */
export function createFlagChecks(settings: FlagSettings): FlagChecks {
  const checks = [burstCheck(settings), sameAddressCheck(settings), reusedFormCheck(settings)];
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
      const flags = [
        ...checked.flatMap((lead) => contested(lead, settings)),
        ...leads.filter((lead) => isFast(lead, settings)).map((lead) => flag(lead, 'fast')),
        ...leads.filter(hasDisposableEmail).map((lead) => flag(lead, 'disposable_email')),
      ];
      const stored: FlaggedLater[] = [];
      for (const check of checks) {
        const found = await flagPastThreshold(trx, leads, check);
        flags.push(...found.flags);
        stored.push(...found.stored);
      }
      return { flags, stored };
    },
  };
}

// Past this many groups remembered, the oldest knowledge goes: it is only a shortcut.
const maxSaturated = 10_000;

/**
 * Groups known to have at least the threshold of stored leads from a time on: the oldest of the
 * newest `threshold` found.
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
const flag = (lead: Pick<Row, 'id'>, name: LeadFlag): LeadFlagRow => ({
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

/** The values that name a group, as text ('' for none), sent with the batch's groups. */
const groupColumns = [
  'key',
  'marketing_id',
  'address_hash',
  'served_at',
  'since',
  'until',
] as const;
type GroupValue = Exclude<(typeof groupColumns)[number], 'key'>;

/**
 * The stored leads a lead is counted with: those its check's filter finds with these values.
 * `since` may be a bare day (2026-03-01), which sorts before its times. `general`: a general
 * link's group (no marketer), read by its own statement.
 */
interface Group {
  key: string;
  general: boolean;
  values: Record<GroupValue, string>;
}

/** The stored leads of a group, as a condition on the table `lead`, each value from `value`. */
type Filter = (
  eb: ExpressionBuilder<Tables & { lead: RegistrationsTable }, 'lead'>,
  value: (name: GroupValue) => Expression<string>,
  general: boolean,
) => Expression<SqlBool>;

/** A check that counts a lead with the stored leads of its group (docs/flags.md). */
interface GroupCheck {
  name: LeadFlag;
  threshold: number;
  /** The lead's group; none: the lead is not checked. */
  groupOf(lead: Row): Group | undefined;
  filter: Filter;
  /** Past the threshold, the group's first leads are flagged too: a burst from its start. */
  whole: boolean;
  reads: GroupReads;
  saturated: Saturated;
}

const groupOf = (
  key: unknown[],
  general: boolean,
  values: Partial<Record<GroupValue, string>>,
) => ({
  key: JSON.stringify(key),
  general,
  values: { marketing_id: '', address_hash: '', served_at: '', since: '', until: '', ...values },
});

/**
 * burst: a marketer's leads, whatever the package (a new package key for each sign-up is no
 * new link), more than burstLeads in the burstMinutes up to a lead: from then on the whole burst
 * is flagged, its first leads included, so that a rival's junk through a marketer's link is
 * flagged as the real lead after it. A general link's campaign is the provider's own: not
 * checked.
 */
function burstCheck({ burstLeads, burstMinutes }: FlagSettings): GroupCheck {
  const filter: Filter = (eb, value) =>
    eb.and([
      eb('lead.marketing_id', '=', value('marketing_id')),
      eb('lead.repeat_of', 'is', null),
      eb('lead.created_at', '>', value('since')),
    ]);
  return {
    name: 'burst',
    threshold: burstLeads,
    groupOf: (lead) =>
      lead.marketing_id === null
        ? undefined
        : groupOf([lead.marketing_id], false, {
            marketing_id: lead.marketing_id,
            since: minus(lead.created_at, burstMinutes * 60_000),
          }),
    filter,
    whole: true,
    // The window has no end: read from its newest lead, backwards along the index, so that
    // what is remembered holds as long as it can.
    reads: groupReads(filter, burstLeads, 'newest'),
    saturated: new Saturated(),
  };
}

/**
 * same_address: more than sameAddressLeads leads of the lead's marketer (whatever the package;
 * the general links as one) came from its address on its UTC day. A carrier's NAT puts many
 * phones behind one address, hence a count per marketer and day, not per address alone; a lead
 * whose address is unknown is not checked.
 */
function sameAddressCheck({ sameAddressLeads }: FlagSettings): GroupCheck {
  const filter: Filter = (eb, value, general) =>
    eb.and([
      eb('lead.address_hash', '=', value('address_hash')),
      general
        ? eb('lead.marketing_id', 'is', null)
        : eb('lead.marketing_id', '=', value('marketing_id')),
      eb('lead.created_at', '>', value('since')),
      eb('lead.created_at', '<', value('until')),
      eb('lead.repeat_of', 'is', null),
    ]);
  return {
    name: 'same_address',
    threshold: sameAddressLeads,
    groupOf: (lead) => {
      if (lead.address_hash === '') return undefined;
      const day = lead.created_at.slice(0, 10);
      return groupOf([lead.marketing_id, lead.address_hash, day], lead.marketing_id === null, {
        marketing_id: lead.marketing_id ?? '',
        address_hash: lead.address_hash,
        since: day,
        until: new Date(Date.parse(day) + dayMs).toISOString(),
      });
    },
    filter,
    whole: false,
    reads: groupReads(filter, sameAddressLeads, 'any'),
    saturated: new Saturated(),
  };
}

/**
 * reused_form: one served form's stamp sent with more than formStampUses leads, whatever their
 * links: a script that fetched the form once. Each of them is flagged, the first ones included.
 * A lead without a valid stamp is not checked.
 */
function reusedFormCheck({ formStampUses }: FlagSettings): GroupCheck {
  const filter: Filter = (eb, value) =>
    eb.and([
      eb('lead.served_at', '=', value('served_at')),
      eb('lead.created_at', '>', value('since')),
      eb('lead.repeat_of', 'is', null),
    ]);
  return {
    name: 'reused_form',
    threshold: formStampUses,
    groupOf: (lead) =>
      lead.served_at === null
        ? undefined
        : groupOf([lead.served_at], false, { served_at: lead.served_at }),
    filter,
    whole: true,
    reads: groupReads(filter, formStampUses, 'any'),
    saturated: new Saturated(),
  };
}

/**
 * Flags each lead that has at least `threshold` leads of its group before it: the stored ones,
 * counted up to the threshold alone (so that a link of thousands a day reads `threshold` index
 * entries, not thousands), then the batch's earlier ones. A batch's sign-ups came within
 * moments of each other: each group is counted from its earliest lead's start. A group known
 * to be past the threshold since after that start is not read again. For a `whole` check, a
 * group newly past it has its first leads flagged too: the batch's, and the stored ones.
 */
async function flagPastThreshold(
  trx: Kysely<Tables>,
  leads: Row[],
  check: GroupCheck,
): Promise<Flagged> {
  const { name, threshold, saturated } = check;
  const grouped = leads.flatMap((lead) => {
    const group = check.groupOf(lead);
    return group === undefined ? [] : [{ lead, group }];
  });
  if (grouped.length === 0) return { flags: [], stored: [] };
  const groups = new Map<string, Group>();
  for (const { group } of grouped) {
    const known = groups.get(group.key);
    if (known === undefined || group.values.since < known.values.since) {
      groups.set(group.key, group);
    }
  }
  const unknown = [...groups.values()].filter(
    (group) => !saturated.has(group.key, group.values.since),
  );
  const stored = new Map<string, number>();
  for (const key of groups.keys()) stored.set(key, threshold);
  const counts = await readGroups(trx, unknown, check.reads.count);
  for (const group of unknown) stored.set(group.key, Number(counts.get(group.key) ?? 0));
  // Newly past the threshold (once a window, for a link that stays busy): from when on.
  const full = unknown.filter((group) => Number(counts.get(group.key)) >= threshold);
  for (const [key, oldest] of await readGroups(trx, full, check.reads.oldest)) {
    if (oldest !== null) saturated.remember(key, String(oldest));
  }

  const flags: LeadFlagRow[] = [];
  // The batch's leads of a group not flagged (yet), and the groups that passed in this batch.
  const before = new Map<string, Row[]>();
  const passed = new Set<string>();
  for (const { lead, group } of grouped) {
    const count = stored.get(group.key)!;
    stored.set(group.key, count + 1);
    if (count < threshold) {
      before.set(group.key, [...(before.get(group.key) ?? []), lead]);
      continue;
    }
    flags.push(flag(lead, name));
    if (check.whole && !passed.has(group.key)) {
      passed.add(group.key);
      flags.push(...(before.get(group.key) ?? []).map((earlier) => flag(earlier, name)));
    }
  }
  const flaggedStored: FlaggedLater[] = [];
  // A group known past the threshold had its first leads flagged when that was found.
  for (const group of unknown) {
    if (passed.has(group.key)) flaggedStored.push(...(await flagFirstStored(trx, check, group)));
  }
  return { flags, stored: flaggedStored };
}

/**
 * Flags the first `threshold` stored leads of a group that passed it, those not flagged yet.
 * Every later lead of the group had `threshold` before it in its own window (which holds all
 * of the group's leads from the group's start up to it), and was flagged as it was stored.
 */
async function flagFirstStored(
  trx: Kysely<Tables>,
  check: GroupCheck,
  group: Group,
): Promise<FlaggedLater[]> {
  const first = await trx
    .selectFrom('registrations as lead')
    .select(['lead.id', 'lead.created_at'])
    .where((eb) => check.filter(eb, (name) => eb.val(group.values[name]), group.general))
    .orderBy('lead.created_at')
    .orderBy('lead.id')
    .limit(check.threshold)
    .execute();
  if (first.length === 0) return [];
  // Those flagged already (most of them, when a busy link is read again), left out.
  const flagged = await trx
    .selectFrom('lead_flags')
    .select('registration_id')
    .where('flag', '=', check.name)
    .where(
      'registration_id',
      'in',
      first.map((lead) => lead.id),
    )
    .execute();
  const known = new Set(flagged.map((row) => row.registration_id));
  const unflagged = first.filter((lead) => !known.has(lead.id));
  if (unflagged.length === 0) return [];
  // Another instance may flag them at the same time: those it did are not flagged twice, and
  // its events are its own.
  const added = await trx
    .insertInto('lead_flags')
    .values(unflagged.map((lead) => flag(lead, check.name)))
    .onConflict((oc) => oc.columns(['registration_id', 'flag']).doNothing())
    .returning('registration_id')
    .execute();
  const ids = new Set(added.map((row) => row.registration_id));
  return unflagged.filter((lead) => ids.has(lead.id));
}

const sentColumn = (name: GroupValue) => sql.ref<string>(`sent.${name}`);

/** How readGroups reads a group's stored leads, by what it reads and whose link. */
type GroupReads = Record<
  'count' | 'oldest',
  Record<'marketer' | 'general', AliasedExpression<number | string | null, 'value'>>
>;

/**
 * The subqueries of readGroups for a check: of a group's stored leads, up to `threshold` of
 * them (the newest, or any), how many or the oldest. Each runs once per group through an index
 * that starts with the filter's first column, stopped at the threshold. Built once, not per
 * batch: building them took a sign-up on SQLite longer than running them (docs/performance.md).
 */
function groupReads(filter: Filter, threshold: number, which: 'newest' | 'any'): GroupReads {
  const tables = expressionBuilder<Tables>();
  const leads = (general: boolean) => {
    const query = tables
      .selectFrom('registrations as lead')
      .select('lead.created_at')
      .where((eb) => filter(eb, sentColumn, general));
    // A literal, not a parameter (the threshold is a setting): SQLite runs a statement whose
    // subquery in FROM has a bound LIMIT some 50 µs slower each time (docs/performance.md).
    return tables.selectFrom(
      (which === 'newest' ? query.orderBy('lead.created_at', 'desc') : query)
        .limit(sql.lit(threshold))
        .as('found'),
    );
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
 * marketers' links, one for those of general links. A union of one select a group would cost
 * the planning of each.
 */
async function readGroups(
  trx: Kysely<Tables>,
  groups: Group[],
  read: GroupReads['count' | 'oldest'],
): Promise<Map<string, number | string | null>> {
  const found = new Map<string, number | string | null>();
  for (const general of [false, true]) {
    const some = groups.filter((group) => group.general === general);
    if (some.length === 0) continue;
    const sent = textTable(
      trx,
      groupColumns,
      some.map(({ key, values }) => [
        key,
        ...groupColumns.slice(1).map((name) => values[name as GroupValue]),
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
