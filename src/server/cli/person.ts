import { createInterface } from 'node:readline/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { normalizePhone, phonePattern } from '../../domain/phone';
import { readDatabase, type Output } from './command';
import { deleteSubmissions, findPerson, type PersonRow } from '../registrations/personal-data';
import { toStored } from '../registrations/registration-repository';

const usage = `usage: npm run person -- --phone 9665XXXXXXXX [--erase [--yes]]
       npm run person -- --email name@example.com [--erase [--yes]]`;

/** Asks a yes-or-no question on the terminal; undefined when there is none to ask on. */
export type Confirm = ((question: string) => Promise<boolean>) | undefined;

/**
 * A submission as a request for access is answered: the stored names, in camelCase, with the
 * history of its status (a lead's; a repeat has none) and its webhook events.
 */
function describe(row: PersonRow) {
  return {
    ...toStored(row),
    statusHistory: row.status_changes.map((change) => ({
      status: change.status,
      previousStatus: change.previous_status,
      changedAt: change.changed_at,
      changedBy: change.changed_by,
    })),
    webhookEvents: row.webhook_events.map((event) => ({
      id: event.id,
      type: event.type,
      status: event.status,
      attempts: event.attempts,
      createdAt: event.created_at,
      nextAttemptAt: event.next_attempt_at,
      deliveredAt: event.delivered_at,
      lastError: event.last_error,
    })),
  };
}

/**
 * `npm run person`: everything stored about one person, as JSON (a request for access), and with
 * --erase, every submission of theirs deleted with the history of its status and its webhook
 * events (a request for erasure); the report's totals keep their counts. Returns the exit code.
 */
export async function runPerson(
  argv: string[],
  env: Record<string, string | undefined>,
  { out, err }: Output,
  confirm: Confirm,
): Promise<number> {
  let selection: { phone: string } | { email: string };
  let erase: boolean;
  let yes: boolean;
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        phone: { type: 'string' },
        email: { type: 'string' },
        erase: { type: 'boolean', default: false },
        yes: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if ((values.phone === undefined) === (values.email === undefined)) {
      throw new Error('expected --phone or --email, one of them');
    }
    if (values.phone !== undefined) {
      // As the form takes it: Arabic-Indic digits, spaces, +966 or 05… all name one number.
      const phone = normalizePhone(values.phone);
      if (!phonePattern.test(phone)) throw new Error('--phone must be a number like 9665XXXXXXXX');
      selection = { phone };
    } else {
      const email = values.email?.trim() ?? '';
      if (!email.includes('@')) throw new Error('--email must be an e-mail address');
      selection = { email };
    }
    if (values.yes && !values.erase) throw new Error('--yes goes with --erase');
    erase = values.erase;
    yes = values.yes;
    if (erase && !yes && confirm === undefined) {
      throw new Error('--erase asks for confirmation on a terminal; elsewhere add --yes');
    }
  } catch (error) {
    err(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }

  let declined = false;
  const code = await readDatabase(env, err, async (database) => {
    const rows = await findPerson(database, selection);
    if (!erase) {
      out(`${JSON.stringify({ ...selection, submissions: rows.map(describe) }, null, 2)}\n`);
      return;
    }
    if (rows.length === 0) {
      out(
        `${JSON.stringify({ ...selection, erased: { submissions: 0, statusChanges: 0, webhookEvents: 0, ids: [] } }, null, 2)}\n`,
      );
      return;
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
      declined = true;
      return;
    }
    const { ids, statusChanges, webhookEvents } = await deleteSubmissions(database, selection);
    out(
      `${JSON.stringify({ ...selection, erased: { submissions: ids.length, statusChanges, webhookEvents, ids } }, null, 2)}\n`,
    );
    // SQLite zeroes the rows (secure_delete); PostgreSQL only marks them dead, and VACUUM only
    // frees their space: their bytes stay in the pages until the table is rewritten.
    if (database.kind === 'postgres') err(postgresErasureNote);
  });
  return declined ? 1 : code;
}

export const postgresErasureNote =
  'PostgreSQL keeps the erased bytes in its table and index pages until they are rewritten: run ' +
  '`VACUUM FULL registrations, webhook_events;` (or pg_repack) now or on the schedule of ' +
  'docs/personal-data.md.\n';

async function askOnTerminal(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await terminal.question(question)).trim());
  } finally {
    terminal.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await runPerson(
    process.argv.slice(2),
    process.env,
    {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
    },
    process.stdin.isTTY ? askOnTerminal : undefined,
  );
}
