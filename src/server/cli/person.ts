import { marketingIdPattern } from '../../domain/links';
import { defineCommand, parsePhone, visibleJson, type Terminal } from './command';
import { exportRecord } from './export';
import { eraseMail, findMail, type MailErased, type MailRecords } from '../mail/mail-personal-data';
import { createPeople } from '../people/people';
import { deleteSubmissions, findPerson, type PersonRow } from '../registrations/personal-data';
import { toStored } from '../registrations/registration-repository';
import type { Database, Tables } from '../db/schema';

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

const recordsIn = (mail: MailRecords) =>
  mail.subscribers.length + mail.confirmations.length + mail.consents.length + mail.emails.length;
const erasedIn = (erased: MailErased) =>
  erased.subscribers + erased.confirmations + erased.consents + erased.emails;

/**
 * What the directory keeps about one marketer (docs/personal-data.md#the-programmes-people):
 * shown, or erased with `erase`. Their leads are the prospects' data, kept and erased as theirs.
 */
async function marketer(
  database: Database,
  marketingId: string,
  erase: boolean,
  yes: boolean,
  { out, err, confirm }: Terminal,
) {
  const show = (value: object) => out(`${visibleJson({ marketer: marketingId, ...value }, 2)}\n`);
  const people = createPeople(database);
  const person = (await people.get(marketingId)) ?? null;
  // Their e-mails' choices, confirmations and consents, by their token's subject: their id.
  const mail = await findMail(database, { subject: marketingId });
  if (!erase) {
    show({ person, mail });
    return 0;
  }
  if (
    (person !== null || recordsIn(mail) > 0) &&
    !yes &&
    !(await confirm?.(
      "Erase what the directory keeps about this marketer (their name, e-mail and team) and their e-mails' records? [y/N] ",
    ))
  ) {
    err('Nothing erased.\n');
    return 1;
  }
  const erased = person !== null && (await people.remove(marketingId));
  const erasedMail = await eraseMail(database, { subject: marketingId });
  show({ erased: { people: erased ? 1 : 0 }, erased_mail: erasedMail });
  if ((erased || erasedIn(erasedMail) > 0) && database.kind === 'postgres') {
    err(postgresErasureNote);
  }
  return 0;
}

/**
 * `npm run person`: everything stored about one person, as JSON (a request for access), and with
 * --erase, every submission of theirs deleted with the history of its status and its webhook
 * events (a request for erasure); the report's totals keep their counts. With --marketer, what
 * the directory of the programme's people keeps about a marketer. By e-mail or marketer, the
 * e-mails' records too: choices, confirmations, consents and the e-mails sent or waiting.
 */
export const personCommand = defineCommand({
  name: 'person',
  summary: "one person's submissions, or a marketer's name and team, shown (access) or erased",
  usage: [
    '--phone 9665XXXXXXXX [--erase [--yes]]',
    '--email name@example.com [--erase [--yes]]',
    '--marketer MARKETING_ID [--erase [--yes]]',
  ],
  options: {
    phone: { type: 'string' },
    email: { type: 'string' },
    marketer: { type: 'string' },
    erase: { type: 'boolean', default: false },
    yes: { type: 'boolean', default: false },
  },
  parse({ phone, email, marketer, erase, yes }, _positionals, _env, { confirm }) {
    if ([phone, email, marketer].filter((value) => value !== undefined).length !== 1) {
      throw new Error('expected --phone, --email or --marketer, one of them');
    }
    const trimmed = email?.trim() ?? '';
    if (email !== undefined && !trimmed.includes('@')) {
      throw new Error('--email must be an e-mail address');
    }
    if (marketer !== undefined && !marketingIdPattern.test(marketer)) {
      throw new Error('--marketer must be a marketing id');
    }
    if (yes && !erase) throw new Error('--yes goes with --erase');
    if (erase && !yes && confirm === undefined) {
      throw new Error('--erase asks for confirmation on a terminal; elsewhere add --yes');
    }
    const selection: { phone: string } | { email: string } | { marketer: string } =
      phone !== undefined
        ? { phone: parsePhone(phone) }
        : email !== undefined
          ? { email: trimmed }
          : { marketer: marketer! };
    return { selection, erase, yes };
  },
  async run(database, { selection, erase, yes }, terminal) {
    if ('marketer' in selection) {
      return marketer(database, selection.marketer, erase, yes, terminal);
    }
    const { out, err, confirm } = terminal;
    const show = (value: object) => out(`${visibleJson({ ...selection, ...value }, 2)}\n`);
    const rows = await findPerson(database, selection);
    // By e-mail, the address may be a marketer's or a manager's too: their e-mails' records.
    const mail = 'email' in selection ? await findMail(database, selection) : undefined;
    if (!erase) {
      show({ submissions: rows.map(describe), ...(mail && { mail }) });
      return 0;
    }
    const mailRecords = mail === undefined ? 0 : recordsIn(mail);
    if (rows.length === 0 && mailRecords === 0) {
      show({
        erased: { submissions: 0, status_changes: 0, reviews: 0, webhook_events: 0, ids: [] },
        ...(mail && {
          erased_mail: { subscribers: 0, confirmations: 0, consents: 0, emails: 0 },
        }),
      });
      return 0;
    }
    const events = rows.reduce((sum, row) => sum + row.webhook_events.length, 0);
    const changes = rows.reduce((sum, row) => sum + row.status_changes.length, 0);
    const ofMail = mail === undefined ? '' : ` and ${mailRecords} records of e-mails`;
    if (
      !yes &&
      !(await confirm?.(
        `Erase ${rows.length} submissions, ${changes} changes of their status, ${events} webhook events${ofMail} of this person? [y/N] `,
      ))
    ) {
      err('Nothing erased.\n');
      return 1;
    }
    const { ids, statusChanges, reviews, webhookEvents } = await deleteSubmissions(
      database,
      selection,
    );
    const erasedMail = 'email' in selection ? await eraseMail(database, selection) : undefined;
    show({
      erased: {
        submissions: ids.length,
        status_changes: statusChanges,
        reviews,
        webhook_events: webhookEvents,
        ids,
      },
      ...(erasedMail && { erased_mail: erasedMail }),
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
 * the deleted leads' totals, the kept days' counts); and the directory, where a marketer's name
 * and e-mail were (--marketer, and retention's erasures); and the e-mails' addresses, choices,
 * consents and the e-mails themselves.
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
  'people',
  'mail_subscribers',
  'mail_confirmations',
  'mail_consents',
  'mail_outbox',
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
