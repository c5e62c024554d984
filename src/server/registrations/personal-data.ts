import { sql, type ExpressionBuilder, type Kysely, type RawBuilder } from 'kysely';
import { forgetCampaign } from '../count-rollups';
import { dropDeletedPages, idsTable, textTable, writeTransaction } from '../db/dialect';
import { otherCampaign } from '../campaigns';
import { countKeys, keptColumns, storedCounts } from '../counts';
import { flagNames } from '../leads/flag-names';
import type {
  Database,
  LeadFlag,
  LeadReviewsTable,
  LeadStatusChangesTable,
  RegistrationsTable,
  SignUpTotalsTable,
  Tables,
  WebhookEventsTable,
} from '../db/schema';

// Issue 15 (the PDPL): submissions deleted by age (RETENTION_DAYS) or on a person's request
// (`npm run person -- --erase`), and everything stored about one person.

/**
 * The lock a deletion holds. A change of a lead's status takes it too (leads/lead-statuses.ts):
 * otherwise a change could be written, with its event, for a lead being deleted, after the
 * deletion had read its history, and outlive it.
 */
export const deletionLock = 'personal data deletion';

/** One person's submissions: by phone or by e-mail. */
type Person = { phone: string } | { email: string };

/** Whose submissions: by age (one chunk of them, retentionChunk), or one person's. */
export type Selection = { createdBefore: string } | Person;

/**
 * How many of the submissions past RETENTION_DAYS one deletion takes, oldest first, each with
 * its repeats: a short transaction, so that a large backlog never holds the lock that other
 * writes wait for (a lead's change of status, an erasure) for long, nor meets PostgreSQL's
 * statement time-out. The caller deletes chunk after chunk until none is left.
 */
export const retentionChunk = 2_000;

/**
 * What a deletion removed: the submissions' ids, and how many changes of their status, decisions
 * on their credit and webhook events went with them (their flags too, uncounted).
 */
export interface Deleted {
  ids: string[];
  statusChanges: number;
  reviews: number;
  webhookEvents: number;
}

/**
 * One submission, its status's history, its flags (by name), the decisions on its credit and its
 * webhook events, as the person command prints them.
 */
export type PersonRow = RegistrationsTable & {
  status_changes: LeadStatusChangesTable[];
  flags: LeadFlag[];
  reviews: LeadReviewsTable[];
  webhook_events: WebhookEventsTable[];
};

type Registrations = ExpressionBuilder<Tables, 'registrations'>;

// The condition on `registrations` for a person: the rows of their phone, or the rows that gave
// their e-mail, and no other: an e-mail typed with someone else's phone must not hand over (or
// erase) that person's rows.
function selected(selection: Person) {
  return (eb: Registrations) => {
    if ('phone' in selection) return eb('phone', '=', selection.phone);
    return eb(eb.fn('lower', ['email']), '=', selection.email.toLowerCase());
  };
}

/**
 * The ids a deletion takes. By age: the oldest retentionChunk past the limit (through the index
 * on created_at and id), each lead with its repeats (at most 24 hours younger), so that no kept
 * row is counted for a link that is no longer there.
 */
async function chosenIds(
  trx: Kysely<Tables>,
  database: Database,
  selection: Selection,
): Promise<string[]> {
  if (!('createdBefore' in selection)) {
    const rows = await trx
      .selectFrom('registrations')
      .select('id')
      .where(selected(selection))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(({ id }) => id);
  }
  const oldest = await trx
    .selectFrom('registrations')
    .select('id')
    .where('created_at', '<', selection.createdBefore)
    .orderBy('created_at')
    .orderBy('id')
    .limit(retentionChunk)
    .execute();
  if (oldest.length === 0) return [];
  const ids = oldest.map(({ id }) => id);
  const repeats = await trx
    .selectFrom('registrations')
    .select('id')
    .where('repeat_of', 'in', idsTable(database, ids))
    .execute();
  return [...new Set([...ids, ...repeats.map(({ id }) => id)])];
}

/**
 * Before `chosen` rows go: each lead among them whose repeats are not all going hands its place
 * to the oldest repeat left, which becomes the lead (repeat_of null) with the others linked to
 * it, so that no kept row points to a deleted one and the repeat rule finds a lead. The
 * lead's status, its history and the decisions on its credit go on with the phone to that row: an erasure by e-mail takes the
 * rows that gave the e-mail, not what the provider learnt by calling the phone (someone may have
 * typed another person's phone first). The lead left behind is as it came (`new`), so that it is
 * counted as a deleted lead without the outcome counted on the new one.
 */
async function promoteRepeats(trx: Kysely<Tables>, chosen: RawBuilder<string>): Promise<void> {
  const left = await trx
    .selectFrom('registrations as r')
    .innerJoin('registrations as lead', 'lead.id', 'r.repeat_of')
    .select(['r.id', 'r.repeat_of', 'lead.status', 'lead.status_changed_at'])
    .where('r.repeat_of', 'in', chosen)
    .where('r.id', 'not in', chosen)
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
  const newLead = new Map<string, string>();
  for (const { id, repeat_of: lead, status, status_changed_at } of left) {
    if (lead === null) continue;
    const promoted = newLead.get(lead);
    if (promoted !== undefined) {
      await trx
        .updateTable('registrations')
        .set({ repeat_of: promoted })
        .where('id', '=', id)
        .execute();
      continue;
    }
    newLead.set(lead, id);
    await trx
      .updateTable('registrations')
      .set({ repeat_of: null, status, status_changed_at })
      .where('id', '=', id)
      .execute();
    await trx
      .updateTable('lead_status_changes')
      .set({ registration_id: id })
      .where('registration_id', '=', lead)
      .execute();
    // The decisions on the lead's credit go on with it too; its flags, about that submission
    // (its time, its e-mail, its address), go with it.
    await trx
      .updateTable('lead_reviews')
      .set({ registration_id: id })
      .where('registration_id', '=', lead)
      .execute();
    await trx
      .updateTable('registrations')
      .set({ status: 'new', status_changed_at: null })
      .where('id', '=', lead)
      .execute();
  }
}

// Totals rows a statement, at most: SQLite takes up to 32,766 values (11 a row).
const rowsPerStatement = 2_000;

type CountedRow = Record<(typeof countKeys)[number], string> &
  Record<(typeof keptColumns)[number], number | string>;

/**
 * The deleted submissions' counts as they are kept: a campaign keeps its name only where it is
 * not one person's alone (two phones or more among its leads on those marketers' links, or a
 * name the totals already keep), otherwise it becomes otherCampaign, and so do its visits, so
 * that a link made for one person (utm_campaign=ahmed-0501234567) does not tell, after the
 * erasure, what became of them; visits and leads still name the same campaigns (counts.ts).
 */
async function foldPersonalCampaigns(
  trx: Kysely<Tables>,
  counted: CountedRow[],
): Promise<SignUpTotalsTable[]> {
  const campaignOf = (row: { utm_source: string; utm_campaign: string }) =>
    JSON.stringify([row.utm_source, row.utm_campaign]);
  const named = counted.filter(
    (row) => (row.utm_source !== '' || row.utm_campaign !== '') && row.utm_source !== otherCampaign,
  );
  const personal = new Set(named.map(campaignOf));
  if (personal.size > 0) {
    const marketers = new Set(named.map((row) => row.marketing_id));
    for (const key of await sharedCampaigns(trx, [...personal], marketers)) personal.delete(key);
    const kept = await trx
      .selectFrom('sign_up_totals')
      .select(['utm_source', 'utm_campaign'])
      .distinct()
      .where('utm_campaign', 'in', [...new Set(named.map((row) => row.utm_campaign))])
      .execute();
    for (const row of kept) personal.delete(campaignOf(row));
    for (const key of personal) {
      const [source, campaign] = JSON.parse(key) as [string, string];
      await foldVisits(trx, [source, campaign]);
      await forgetCampaign(trx, source, campaign);
    }
  }
  const totals = new Map<string, SignUpTotalsTable>();
  for (const row of counted) {
    const other = personal.has(campaignOf(row));
    const keys = {
      day: row.day,
      marketing_id: row.marketing_id,
      package_key: row.package_key,
      utm_source: other ? otherCampaign : row.utm_source,
      utm_campaign: other ? otherCampaign : row.utm_campaign,
    };
    const id = JSON.stringify(keys);
    const total = totals.get(id) ?? {
      ...keys,
      ...(Object.fromEntries(keptColumns.map((column) => [column, 0])) as Record<
        (typeof keptColumns)[number],
        number
      >),
    };
    for (const column of keptColumns) total[column] += Number(row[column]);
    totals.set(id, total);
  }
  return [...totals.values()];
}

/**
 * Of `campaigns` (each as JSON [source, campaign], '' for none), those with leads of two phones
 * or more on the links of `marketers` ('' for the general links). Each campaign is looked up
 * through its index (registrations_campaign): a phone, then a lead of another phone, so a
 * campaign of thousands of leads costs a few entries, not a count of them.
 */
async function sharedCampaigns(
  trx: Kysely<Tables>,
  campaigns: string[],
  marketers: Set<string>,
): Promise<string[]> {
  const ids = [...marketers].filter((id) => id !== '');
  const named = textTable(
    trx,
    ['key', 'source', 'campaign'],
    campaigns.map((key) => [key, ...(JSON.parse(key) as [string, string])]),
  ).as('named');
  // A lead of the campaign on those links, as the index has it: its expressions, and its
  // condition (the leads with campaign parameters) said as the index says it.
  const ofCampaign = (lead: 'lead' | 'other') => {
    const source = sql.ref(`${lead}.utm_source`);
    const campaign = sql.ref(`${lead}.utm_campaign`);
    const marketer = sql.ref(`${lead}.marketing_id`);
    return sql<boolean>`coalesce(${source}, '') = ${sql.ref('named.source')}
      and coalesce(${campaign}, '') = ${sql.ref('named.campaign')}
      and (${source} is not null or ${campaign} is not null)
      and ${sql.ref(`${lead}.repeat_of`)} is null
      and (${sql.join(
        [
          ...(ids.length > 0 ? [sql`${marketer} in (${sql.join(ids)})`] : []),
          ...(marketers.has('') ? [sql`${marketer} is null`] : []),
        ],
        sql` or `,
      )})`;
  };
  const rows = await trx
    .selectFrom(named)
    .select((eb) => [
      'named.key',
      eb
        .selectFrom('registrations as other')
        .select('other.id')
        .where(ofCampaign('other'))
        .where(
          'other.phone',
          '<>',
          eb
            .selectFrom('registrations as lead')
            .select('lead.phone')
            .where(ofCampaign('lead'))
            .limit(1)
            .$asScalar(),
        )
        .limit(1)
        .as('another'),
    ])
    .execute();
  return rows.filter((row) => row.another !== null).map((row) => row.key);
}

/** A campaign's visits, on every link and day, counted as otherCampaign from now on. */
async function foldVisits(trx: Kysely<Tables>, [source, campaign]: [string, string]) {
  const visitKeys = ['day', 'marketing_id', 'package_key'] as const;
  await trx
    .insertInto('visit_totals')
    .columns([...visitKeys, 'utm_source', 'utm_campaign', 'visits', 'visitors'])
    .expression(
      trx
        .selectFrom('visit_totals')
        .select((eb) => [
          ...visitKeys,
          eb.val(otherCampaign).as('utm_source'),
          eb.val(otherCampaign).as('utm_campaign'),
          'visits',
          'visitors',
        ])
        .where('utm_source', '=', source)
        .where('utm_campaign', '=', campaign),
    )
    .onConflict((oc) =>
      oc.columns([...visitKeys, 'utm_source', 'utm_campaign']).doUpdateSet((eb) => ({
        visits: eb(eb.ref('visit_totals.visits'), '+', eb.ref('excluded.visits')),
        visitors: eb(eb.ref('visit_totals.visitors'), '+', eb.ref('excluded.visitors')),
      })),
    )
    .execute();
  await trx
    .deleteFrom('visit_totals')
    .where('utm_source', '=', source)
    .where('utm_campaign', '=', campaign)
    .execute();
  await trx
    .updateTable('visits')
    .set({ utm_source: otherCampaign, utm_campaign: otherCampaign })
    .where('utm_source', '=', source)
    .where('utm_campaign', '=', campaign)
    .execute();
}

/**
 * Deletes the selected submissions (by age: one chunk), the history of their status, their
 * flags, the decisions on their credit and every webhook event about any of them in one
 * transaction, after adding their counts to the daily totals that every count of a
 * lead reads (counts.ts), each for its lead's link and campaign. Deleting what is
 * already gone does nothing; two instances (or the command and a server) deleting at once take
 * turns, so nothing is counted twice.
 */
export async function deleteSubmissions(
  database: Database,
  selection: Selection,
): Promise<Deleted> {
  const deleted = await writeTransaction(
    database,
    [deletionLock],
    async (trx): Promise<Deleted> => {
      const ids = await chosenIds(trx, database, selection);
      if (ids.length === 0) return { ids, statusChanges: 0, reviews: 0, webhookEvents: 0 };
      // Read once, then named by id in every statement, each through an index; nothing
      // promoteRepeats changes (the repeats left behind, and the status of the leads they leave)
      // moves a row in or out, and the history it passes on is no longer theirs.
      const chosen = idsTable(database, ids);
      const rows = trx.selectFrom('registrations').select('id').where('id', 'in', chosen);
      const changes = trx
        .selectFrom('lead_status_changes')
        .select('id')
        .where('registration_id', 'in', chosen);
      const reviews = trx
        .selectFrom('lead_reviews')
        .select('id')
        .where('registration_id', 'in', chosen);
      await promoteRepeats(trx, chosen);
      // Counted before they go, as every count of a lead counts them (counts.ts).
      const counted = await trx
        .selectFrom(storedCounts(trx, { since: '', ids: rows, repeats: true }).as('counted'))
        .select((eb) => [
          ...countKeys,
          ...keptColumns.map((column) => eb.fn.sum<number | string>(column).as(column)),
        ])
        .groupBy([...countKeys])
        .execute();
      const folded = await foldPersonalCampaigns(trx, counted);
      for (let start = 0; start < folded.length; start += rowsPerStatement) {
        await trx
          .insertInto('sign_up_totals')
          .values(folded.slice(start, start + rowsPerStatement))
          .onConflict((oc) =>
            oc
              .columns([...countKeys])
              .doUpdateSet((eb) =>
                Object.fromEntries(
                  keptColumns.map((column) => [
                    column,
                    eb(eb.ref(`sign_up_totals.${column}`), '+', eb.ref(`excluded.${column}`)),
                  ]),
                ),
              ),
          )
          .execute();
      }
      // One list, not an OR of two: each side is read through its index, not the whole table.
      const events = await trx
        .deleteFrom('webhook_events')
        .where('subject_id', 'in', rows.union(changes).union(reviews))
        .executeTakeFirst();
      const history = await trx
        .deleteFrom('lead_status_changes')
        .where('registration_id', 'in', chosen)
        .executeTakeFirst();
      const decisions = await trx
        .deleteFrom('lead_reviews')
        .where('registration_id', 'in', chosen)
        .executeTakeFirst();
      await trx.deleteFrom('lead_flags').where('registration_id', 'in', chosen).execute();
      await trx.deleteFrom('registrations').where('id', 'in', chosen).execute();
      return {
        ids,
        statusChanges: Number(history.numDeletedRows),
        reviews: Number(decisions.numDeletedRows),
        webhookEvents: Number(events.numDeletedRows),
      };
    },
  );
  if (deleted.ids.length > 0) await dropDeletedPages(database);
  return deleted;
}

/**
 * The submissions of a person: of their phone, or that gave their e-mail; no other row. Each
 * with the history of its status, its flags by name (never the other lead a flag names, which may
 * be another person's), the decisions on its credit and the webhook events about it, its changes
 * or its decisions. Found by e-mail, a row has no status, history, flags, decisions nor their
 * events: they are what the provider learnt by calling the phone, or about the phone (a
 * `contested` flag: another marketer's lead), whose owner may be someone else.
 */
export async function findPerson(
  database: Database,
  selection: { phone: string } | { email: string },
): Promise<PersonRow[]> {
  // One snapshot for them all, so an event is never without its submission.
  return database.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const rows = await trx
        .selectFrom('registrations')
        .selectAll()
        .where(selected(selection))
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      if (rows.length === 0) return [];
      const byEmail = 'email' in selection;
      const ids = rows.map(({ id }) => id);
      const changes = byEmail
        ? []
        : await trx
            .selectFrom('lead_status_changes')
            .selectAll()
            .where('registration_id', 'in', ids)
            .orderBy('changed_at')
            .orderBy('id')
            .execute();
      const reviews = byEmail
        ? []
        : await trx
            .selectFrom('lead_reviews')
            .selectAll()
            .where('registration_id', 'in', ids)
            .orderBy('reviewed_at')
            .orderBy('id')
            .execute();
      // A flag is about the phone too: `contested` tells that it was another marketer's lead.
      const flags = byEmail ? new Map<string, LeadFlag[]>() : await flagNames(trx, { ids });
      const events = await trx
        .selectFrom('webhook_events')
        .selectAll()
        .where('subject_id', 'in', [
          ...ids,
          ...changes.map(({ id }) => id),
          ...reviews.map(({ id }) => id),
        ])
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => {
        const own = changes.filter((change) => change.registration_id === row.id);
        const decisions = reviews.filter((review) => review.registration_id === row.id);
        const subjects = new Set([row.id, ...[...own, ...decisions].map(({ id }) => id)]);
        return {
          ...row,
          ...(byEmail && { status: null, status_changed_at: null }),
          status_changes: own,
          flags: flags.get(row.id) ?? [],
          reviews: decisions,
          webhook_events: events.filter((event) => subjects.has(event.subject_id)),
        };
      });
    });
}
