import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { leadStatuses, parseLeadStatus, type LeadStatus } from '../../domain/lead-status';
import { defineCommand, parsePhone, visible, visibleJson, type Terminal } from './command';
import { createLeadStatuses, type LeadRef, type LeadStatuses } from '../leads/lead-statuses';

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

/** Where the header names the columns read: `id` or `phone`, and `status` (-1: not there). */
type Columns = Record<'id' | 'phone' | 'status', number>;

function columnsOf(header: string[]): Columns {
  const names = header.map((name) => name.trim().toLowerCase());
  const [id, phone, status] = ['id', 'phone', 'status'].map((name) => names.indexOf(name));
  if (status === -1 || (id === -1 && phone === -1)) {
    throw new Error('the first row must name the columns: id or phone, and status');
  }
  return { id: id!, phone: phone!, status: status! };
}

function rowOf(columns: Columns, record: string[], line: number): ImportRow | undefined {
  const cell = (index: number) => (index === -1 ? '' : (record[index] ?? '').trim());
  // A row of empty cells (Excel writes them under a table) is no row.
  if (record.every((value) => value.trim() === '')) return undefined;
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

/** The header's delimiter: a comma, or the semicolon (or tab) if it names more columns. */
async function delimiterOf(file: string): Promise<string> {
  const start = Buffer.concat(await createReadStream(file, { end: 65_535 }).toArray());
  const header = start.toString().split(/\r?\n/, 1)[0] ?? '';
  return [',', ';', '\t'].reduce((best, candidate) =>
    header.split(candidate).length > header.split(best).length ? candidate : best,
  );
}

/** The file's bytes as they are read, refused at the first that are not UTF-8 text. */
async function* utf8(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of chunks) {
      decoder.decode(chunk, { stream: true });
      // A spreadsheet's own format (.xlsx is a zip) is not text with lines.
      if (chunk.includes(0))
        throw new Error('the file is not CSV text: in Excel, save it as "CSV UTF-8"');
      yield chunk;
    }
    decoder.decode();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new Error('the file is not UTF-8 text: in Excel, save it as "CSV UTF-8"', {
      cause: error,
    });
  }
}

/**
 * The rows of a CSV file as Excel saves it (UTF-8, with or without a byte order mark; a comma,
 * or the semicolon of locales whose decimal mark is a comma), its header naming the columns:
 * `id` or `phone`, and `status`; other columns are ignored. Throws when the file is not such a
 * CSV file, before anything is changed. It is read as a stream and only the rows to apply are
 * kept: read whole, 1,000,000 empty rows under a table (4 MB) took 690 MB of memory.
 */
async function readImport(file: string): Promise<ImportRow[]> {
  let columns: Columns | undefined;
  const rows: ImportRow[] = [];
  const parser = parse({
    bom: true,
    delimiter: await delimiterOf(file),
    relax_column_count: true,
    skip_empty_lines: true,
    // Each record is read here, as it is parsed, and dropped.
    on_record: (record: string[], { lines }) => {
      const row = columns === undefined ? undefined : rowOf(columns, record, lines);
      columns ??= columnsOf(record);
      if (row !== undefined) rows.push(row);
      return null;
    },
  });
  try {
    await pipeline(createReadStream(file), utf8, parser);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw new Error(`the file is not CSV: ${error.message}`, { cause: error });
  }
  columns ??= columnsOf([]);
  return rows;
}

/** Applies each good row of the file, in its order; says what became of each. */
async function importFile(statuses: LeadStatuses, file: string, { out, err }: Terminal) {
  let rows;
  try {
    rows = await readImport(file);
  } catch (error) {
    err(`Nothing changed: ${visible((error as Error).message)}\n`);
    return 1;
  }
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
 * WEBHOOK_URL is set. Exit code 1 when anything was refused.
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
  parse(values, positionals) {
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
    return { work };
  },
  async run(database, { work }, terminal) {
    const statuses = createLeadStatuses(database);
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
