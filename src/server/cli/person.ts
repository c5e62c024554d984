import { defineCommand, parsePhone, visibleJson } from './command';
import { exportRecord } from './export';
import { deleteSubmissions, findPerson, type PersonRow } from '../registrations/personal-data';
import { toStored } from '../registrations/registration-repository';
import type { Tables } from '../db/schema';

/**
 * A submission as a request for access is answered: as the export writes it (its flags by name),
 * with the history of its status and the decisions on its credit (a lead's; a repeat has none)
 * and its webhook events, in the table's names.
 */
function describe(row: PersonRow) {
  return {
    ...exportRecord(toStored(row), row.flags),
    status_history: row.status_changes.map((change) => omit(change, 'id', 'registration_id')),
    reviews: row.reviews.map((review) => ({
      ...omit(review, 'id', 'registration_id'),
      credited: review.credited === 1,
    })),
    webhook_events: row.webhook_events.map((event) => omit(event, 'subject_id', 'locked_until')),
  };
}

function omit<Row extends object, Key extends keyof Row>(row: Row, ...keys: Key[]): Omit<Row, Key> {
  const kept = Object.entries(row).filter(([key]) => !keys.includes(key as Key));
  return Object.fromEntries(kept) as Omit<Row, Key>;
}

/**
 * `npm run person`: everything stored about one person, as JSON (a request for access), and with
 * --erase, every submission of theirs deleted with the history of its status and its webhook
 * events (a request for erasure); the report's totals keep their counts.
 */
export const personCommand = defineCommand({
  name: 'person',
  summary: "one person's submissions shown (access), or erased with --erase",
  usage: ['--phone 9665XXXXXXXX [--erase [--yes]]', '--email name@example.com [--erase [--yes]]'],
  options: {
    phone: { type: 'string' },
    email: { type: 'string' },
    erase: { type: 'boolean', default: false },
    yes: { type: 'boolean', default: false },
  },
  parse({ phone, email, erase, yes }, _positionals, _env, { confirm }) {
    if ((phone === undefined) === (email === undefined)) {
      throw new Error('expected --phone or --email, one of them');
    }
    const trimmed = email?.trim() ?? '';
    if (phone === undefined && !trimmed.includes('@')) {
      throw new Error('--email must be an e-mail address');
    }
    if (yes && !erase) throw new Error('--yes goes with --erase');
    if (erase && !yes && confirm === undefined) {
      throw new Error('--erase asks for confirmation on a terminal; elsewhere add --yes');
    }
    const selection = phone !== undefined ? { phone: parsePhone(phone) } : { email: trimmed };
    return { selection, erase, yes };
  },
  async run(database, { selection, erase, yes }, { out, err, confirm }) {
    const show = (value: object) => out(`${visibleJson({ ...selection, ...value }, 2)}\n`);
    const rows = await findPerson(database, selection);
    if (!erase) {
      show({ submissions: rows.map(describe) });
      return 0;
    }
    if (rows.length === 0) {
      show({
        erased: { submissions: 0, status_changes: 0, reviews: 0, webhook_events: 0, ids: [] },
      });
      return 0;
    }
    const events = rows.reduce((sum, row) => sum + row.webhook_events.length, 0);
    const changes = rows.reduce((sum, row) => sum + row.status_changes.length, 0);
    if (
      !yes &&
      !(await confirm?.(
        `Erase ${rows.length} submissions, ${changes} changes of their status and ${events} webhook events of this person? [y/N] `,
      ))
    ) {
      err('Nothing erased.\n');
      return 1;
    }
    const { ids, statusChanges, reviews, webhookEvents } = await deleteSubmissions(
      database,
      selection,
    );
    show({
      erased: {
        submissions: ids.length,
        status_changes: statusChanges,
        reviews,
        webhook_events: webhookEvents,
        ids,
      },
    });
    // SQLite zeroes the rows (secure_delete); PostgreSQL only marks them dead, and VACUUM only
    // frees their space: their bytes stay in the pages until the table is rewritten.
    if (database.kind === 'postgres') err(postgresErasureNote);
    return 0;
  },
});

/**
 * Every table that held the person, or a copy of their campaign or a note about them: their
 * rows, what was written about the rows (flags, decisions, the history of the status, webhook
 * events), and the counts where an erasure renames a one-person campaign (visits, their totals,
 * the deleted leads' totals, the kept days' counts).
 */
const erasedTables = [
  'registrations',
  'lead_flags',
  'lead_reviews',
  'lead_status_changes',
  'webhook_events',
  'visits',
  'visit_totals',
  'sign_up_totals',
  'count_rollups',
] satisfies (keyof Tables)[];

/**
 * What PostgreSQL runs after an erasure, one statement a line (VACUUM runs outside a transaction,
 * so one at a time): the tables rewritten, and their statistics made anew, since ANALYZE keeps
 * sample values (a few hundred phones, names and e-mails) in pg_statistic, whose old rows stay
 * in its pages until it is rewritten too (docs/personal-data.md).
 */
export const postgresErasureVacuum = [
  `VACUUM (FULL, ANALYZE) ${erasedTables.join(', ')};`,
  'VACUUM FULL pg_statistic;',
];

export const postgresErasureNote =
  'PostgreSQL keeps the erased bytes in its table and index pages until they are rewritten: run\n' +
  postgresErasureVacuum.map((statement) => `  ${statement}\n`).join('') +
  'now, or on the schedule of docs/personal-data.md. VACUUM FULL locks each table while it\n' +
  'rewrites it: sign-ups wait, answered 503 past 5 s (36 s for registrations at 1,000,000 rows).\n';
