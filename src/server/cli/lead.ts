import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse/sync';
import { leadStatuses, parseLeadStatus, type LeadStatus } from '../../domain/lead-status';
import { normalizePhone, phonePattern } from '../../domain/phone';
import { readDatabase, type Output } from './command';
import { loadWebhooksOn } from '../env';
import { createLeadStatuses, type LeadRef, type LeadStatuses } from '../leads/lead-statuses';

const usage = `usage: npm run lead -- status --id ID --status STATUS
       npm run lead -- status --phone 9665XXXXXXXX --status STATUS
       npm run lead -- import FILE.csv
STATUS is one of ${leadStatuses.join(', ')}, or its Arabic label.`;

/** A phone as --phone or a file gives it, made into 9665XXXXXXXX; throws with why not. */
function phoneOf(text: string): string {
  // Excel shows a long number in scientific notation and saves it so: its digits are lost.
  if (/^\s*\d([.,]\d+)?E\+?\d+\s*$/i.test(text)) {
    throw new Error(
      'the phone is in scientific notation (as Excel shows 9.66559E+11): its digits are lost; format the column as text and save again',
    );
  }
  const phone = normalizePhone(text);
  if (!phonePattern.test(phone)) throw new Error('the phone is not a number like 9665XXXXXXXX');
  return phone;
}

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
 * The rows of a CSV file as Excel saves it (UTF-8, with or without a byte order mark; a comma,
 * or the semicolon of locales whose decimal mark is a comma), its header naming the columns:
 * `id` or `phone`, and `status`; other columns are ignored. Throws when the file is not such a
 * CSV file, before anything is changed.
 */
export function readImport(bytes: Buffer): ImportRow[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('the file is not UTF-8 text: in Excel, save it as "CSV UTF-8"');
  }
  // A spreadsheet's own format (.xlsx is a zip) is not text with lines.
  if (text.includes('\0'))
    throw new Error('the file is not CSV text: in Excel, save it as "CSV UTF-8"');
  const header = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const delimiter = [',', ';', '\t'].reduce((best, candidate) =>
    header.split(candidate).length > header.split(best).length ? candidate : best,
  );
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      delimiter,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      // csv-parse's types leave out what `info: true` makes of each record.
    }) as unknown as typeof records;
  } catch (error) {
    throw new Error(`the file is not CSV: ${(error as Error).message}`, { cause: error });
  }
  const names = (records[0]?.record ?? []).map((name) => name.trim().toLowerCase());
  const column = (name: string) => names.indexOf(name);
  const [id, phone, status] = [column('id'), column('phone'), column('status')];
  if (status === -1 || (id === -1 && phone === -1)) {
    throw new Error('the first row must name the columns: id or phone, and status');
  }
  return records.slice(1).flatMap(({ record, info: { lines: line } }): ImportRow[] => {
    const cell = (index: number) => (index === -1 ? '' : (record[index] ?? '').trim());
    // A row of empty cells (Excel writes them under a table) is no row.
    if (record.every((value) => value.trim() === '')) return [];
    try {
      const lead: LeadRef =
        cell(id) !== ''
          ? { id: cell(id) }
          : cell(phone) !== ''
            ? { phone: phoneOf(cell(phone)) }
            : { id: '' };
      if ('id' in lead && lead.id === '') throw new Error(`no ${id === -1 ? 'phone' : 'id'}`);
      return [{ line, lead, status: statusOf(cell(status)) }];
    } catch (error) {
      return [{ line, refused: (error as Error).message }];
    }
  });
}

/** Applies each good row, in the file's order; says what became of each. */
async function applyRows(statuses: LeadStatuses, rows: ImportRow[], { out, err }: Output) {
  let changed = 0;
  let unchanged = 0;
  let refused = 0;
  for (const row of rows) {
    if ('refused' in row) {
      refused += 1;
      err(`line ${row.line}: ${row.refused}\n`);
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
  return refused;
}

/**
 * `npm run lead`: what became of a lead, for a provider without a CRM that calls the API (docs/
 * marketer-kit.md): one lead by its id or its phone's most recent lead, or a CSV file of them.
 * Each change is kept in the lead's history as the command line's, with its webhook event when
 * WEBHOOK_URL is set. Returns the exit code: 2 for bad arguments, 1 when anything was refused.
 */
export async function runLead(
  argv: string[],
  env: Record<string, string | undefined>,
  output: Output,
): Promise<number> {
  const { out, err } = output;
  let work:
    { kind: 'status'; lead: LeadRef; status: LeadStatus } | { kind: 'import'; file: string };
  let webhookEvents: boolean;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: {
        id: { type: 'string' },
        phone: { type: 'string' },
        status: { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    });
    const [command, file, ...rest] = positionals;
    if (command === 'import') {
      if (file === undefined || rest.length > 0) throw new Error('import takes one file');
      if (Object.keys(values).length > 0) throw new Error('import takes no options');
      work = { kind: 'import', file };
    } else if (command === 'status' && positionals.length === 1) {
      if ((values.id === undefined) === (values.phone === undefined)) {
        throw new Error('expected --id or --phone, one of them');
      }
      if (values.status === undefined) throw new Error('expected --status');
      const lead = values.id !== undefined ? { id: values.id } : { phone: phoneOf(values.phone!) };
      work = { kind: 'status', lead, status: statusOf(values.status) };
    } else {
      throw new Error('expected status or import');
    }
    webhookEvents = loadWebhooksOn(env);
  } catch (error) {
    err(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }

  let rows: ImportRow[] = [];
  if (work.kind === 'import') {
    try {
      rows = readImport(await readFile(work.file));
    } catch (error) {
      err(`Nothing changed: ${(error as Error).message}\n`);
      return 1;
    }
  }
  let refused = 0;
  const code = await readDatabase(env, err, async (database) => {
    const statuses = createLeadStatuses(database, { webhookEvents });
    if (work.kind === 'import') {
      refused = await applyRows(statuses, rows, output);
      return;
    }
    const result = await statuses.change(work.lead, work.status, 'cli', new Date());
    if (result.kind === 'not_found') {
      refused = 1;
      err(`No lead with this ${'id' in work.lead ? 'id' : 'phone'}.\n`);
      return;
    }
    out(
      `${JSON.stringify({ id: result.id, status: result.status, changed_at: result.changedAt, changed: result.kind === 'changed' })}\n`,
    );
  });
  return code !== 0 ? code : refused > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await runLead(process.argv.slice(2), process.env, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
}
