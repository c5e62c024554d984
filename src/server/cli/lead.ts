import { leadStatuses, parseLeadStatus, type LeadStatus } from '../../domain/lead-status';
import { defineCommand, parsePhone, readCsv, visible, visibleJson, type Terminal } from './command';
import { createLeadStatuses, type LeadRef, type LeadStatuses } from '../leads/lead-statuses';
import { loadMailSettings } from '../env';
import { createClientNotes } from '../mail/client-notes';
import { mailLinks } from '../mail/mail-links';

function statusOf(text: string): LeadStatus {
  const status = parseLeadStatus(text);
  if (status === undefined) {
    throw new Error(
      `unknown status ${JSON.stringify(text.slice(0, 40))}: expected ${leadStatuses.join(', ')} or its Arabic label`,
    );
  }
  return status;
}

/** A row of the file to apply, or why it is refused; `line` is the file's line number. */
type ImportRow =
  { line: number; lead: LeadRef; status: LeadStatus } | { line: number; refused: string };

/**
 * Where the header names the columns read: `id` or `phone`, and `status` (-1: not there); other
 * columns (a name, notes) are ignored.
 */
type Columns = Record<'id' | 'phone' | 'status', number>;

function columnsOf(header: string[]): Columns {
  const names = header.map((name) => name.trim().toLowerCase());
  const [id, phone, status] = ['id', 'phone', 'status'].map((name) => names.indexOf(name));
  if (status === -1 || (id === -1 && phone === -1)) {
    throw new Error('the first row must name the columns: id or phone, and status');
  }
  return { id: id!, phone: phone!, status: status! };
}

function rowOf(columns: Columns, record: string[], line: number): ImportRow {
  const cell = (index: number) => (index === -1 ? '' : (record[index] ?? '').trim());
  try {
    const lead: LeadRef =
      cell(columns.id) !== ''
        ? { id: cell(columns.id) }
        : cell(columns.phone) !== ''
          ? { phone: parsePhone(cell(columns.phone)) }
          : { id: '' };
    if ('id' in lead && lead.id === '') throw new Error(`no ${columns.id === -1 ? 'phone' : 'id'}`);
    return { line, lead, status: statusOf(cell(columns.status)) };
  } catch (error) {
    return { line, refused: (error as Error).message };
  }
}

/** Applies each good row of the file, in its order; says what became of each. */
async function importFile(statuses: LeadStatuses, file: string, { out, err }: Terminal) {
  const rows = await readCsv(file, columnsOf, rowOf, err);
  if (rows === undefined) return 1;
  let changed = 0;
  let unchanged = 0;
  let refused = 0;
  for (const row of rows) {
    if ('refused' in row) {
      refused += 1;
      err(`line ${row.line}: ${visible(row.refused)}\n`);
      continue;
    }
    const result = await statuses.change(row.lead, row.status, 'cli', new Date());
    if (result.kind === 'not_found') {
      refused += 1;
      err(`line ${row.line}: no lead with this ${'id' in row.lead ? 'id' : 'phone'}\n`);
    } else if (result.kind === 'changed') {
      changed += 1;
    } else {
      unchanged += 1;
    }
  }
  out(`${changed} changed, ${unchanged} already so, ${refused} refused\n`);
  return refused > 0 ? 1 : 0;
}

/**
 * `npm run lead`: what became of a lead, for a provider without a CRM that calls the API (docs/
 * marketer-kit.md): one lead by its id or its phone's most recent lead, or a CSV file of them.
 * Each change is kept in the lead's history as the command line's, with its webhook event when
 * WEBHOOK_URL is set, and with e-mail on (SMTP_URL, MAIL_FROM, PUBLIC_URL) its client note.
 * Exit code 1 when anything was refused.
 */
export const leadCommand = defineCommand({
  name: 'lead',
  summary: 'what became of a lead (its status): one, or a CSV file of them',
  usage: [
    'status --id ID --status STATUS',
    'status --phone 9665XXXXXXXX --status STATUS',
    'import FILE.csv',
  ],
  help: `STATUS is one of ${leadStatuses.join(', ')}, or its Arabic label.`,
  options: {
    id: { type: 'string' },
    phone: { type: 'string' },
    status: { type: 'string' },
  },
  positionals: true,
  parse(values, positionals, env) {
    const [command, file, ...rest] = positionals;
    let work:
      { kind: 'status'; lead: LeadRef; status: LeadStatus } | { kind: 'import'; file: string };
    if (command === 'import') {
      if (file === undefined || rest.length > 0) throw new Error('import takes one file');
      if (Object.keys(values).length > 0) throw new Error('import takes no options');
      work = { kind: 'import', file };
    } else if (command === 'status' && positionals.length === 1) {
      if ((values.id === undefined) === (values.phone === undefined)) {
        throw new Error('expected --id or --phone, one of them');
      }
      if (values.status === undefined) throw new Error('expected --status');
      const lead =
        values.id !== undefined ? { id: values.id } : { phone: parsePhone(values.phone!) };
      work = { kind: 'status', lead, status: statusOf(values.status) };
    } else {
      throw new Error('expected status or import');
    }
    // With e-mail on, as the server's: a lead made a client is its marketer's note.
    return { work, mail: loadMailSettings(env) };
  },
  async run(database, { work, mail }, terminal) {
    const statuses = createLeadStatuses(
      database,
      mail && createClientNotes(mailLinks(mail.publicUrl, mail.brand)),
    );
    if (work.kind === 'import') return importFile(statuses, work.file, terminal);
    const result = await statuses.change(work.lead, work.status, 'cli', new Date());
    if (result.kind === 'not_found') {
      terminal.err(`No lead with this ${'id' in work.lead ? 'id' : 'phone'}.\n`);
      return 1;
    }
    terminal.out(
      `${visibleJson({ id: result.id, status: result.status, changed_at: result.changedAt, changed: result.kind === 'changed' })}\n`,
    );
    return 0;
  },
});
