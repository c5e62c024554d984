import { createReadStream, existsSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CsvError, parse } from 'csv-parse';
import { normalizePhone, phonePattern } from '../../domain/phone';
import { describeError, openDatabase } from '../db/database';
import type { Database } from '../db/schema';
import { pendingMigrations } from '../db/migrate';
import { loadDatabaseConfig } from '../env';

export type Env = Record<string, string | undefined>;

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** Where a command writes, and how it asks a yes-or-no question (absent: no terminal to ask on). */
export interface Terminal {
  out: (text: string) => void;
  err: (text: string) => void;
  confirm?: (question: string) => Promise<boolean>;
}

/** A command as it is written: its arguments, and what it does with the database. */
interface CommandSpec<Options extends ParseArgsOptionsConfig, Args> {
  name: string;
  /** What it is for, in the list of `npm run tasjeel -- --help`. */
  summary: string;
  /** Its forms, each as written after `npm run NAME --`, and a line of help after them. */
  usage: string[];
  help?: string;
  options: Options;
  /** Whether it takes words that are not options (a subcommand, a file). */
  positionals?: true;
  /** The arguments as `run` takes them, checked before the database opens; throws with why not. */
  parse(values: ParsedValues<Options>, positionals: string[], env: Env, terminal: Terminal): Args;
  /** Returns the exit code: 1 when anything was refused. */
  run(database: Database, args: Args, terminal: Terminal): Promise<number>;
}

type ParsedValues<Options extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: Options; strict: true }>
>['values'];

export type Command = ReturnType<typeof defineCommand>;

/**
 * The one way a command runs: its arguments parsed (--help: the usage, exit code 0; a wrong
 * one: why and the usage, 2); then DATABASE_URL opened (a bad one: 2), never creating a SQLite
 * file that is not there and refusing a schema behind this program (only the server migrates),
 * the command run and the database closed (1 when it cannot be read).
 */
export function defineCommand<const Options extends ParseArgsOptionsConfig, const Args>(
  spec: CommandSpec<Options, Args>,
) {
  const forms = spec.usage.map(
    (form, index) => `${index === 0 ? 'usage:' : '      '} npm run ${spec.name} -- ${form}`,
  );
  const usage = [...forms, ...(spec.help === undefined ? [] : [spec.help])].join('\n');
  async function run(argv: string[], env: Env, terminal: Terminal): Promise<number> {
    const { out, err } = terminal;
    if (argv.includes('--help') || argv.includes('-h')) {
      out(`${usage}\n`);
      return 0;
    }
    let args: Args;
    let config;
    try {
      const { values, positionals } = parseArgs({
        args: argv,
        options: spec.options,
        strict: true,
        allowPositionals: spec.positionals ?? false,
      });
      args = spec.parse(values as ParsedValues<Options>, positionals, env, terminal);
    } catch (error) {
      err(`${visible((error as Error).message)}\n${usage}\n`);
      return 2;
    }
    try {
      config = loadDatabaseConfig(env);
    } catch (error) {
      err(`${(error as Error).message}\n`);
      return 2;
    }
    if (config.kind === 'sqlite' && config.file !== ':memory:' && !existsSync(config.file)) {
      err(
        `No database at ${config.file} (DATABASE_URL); start the server once, or point DATABASE_URL at it.\n`,
      );
      return 1;
    }
    const database = await openDatabase(config);
    try {
      // The statements are prepared against the current schema; only the server migrates, so a
      // newer command line pointed at production never changes it.
      const pending = await pendingMigrations(database);
      if (pending.length > 0) {
        err(
          `The database's schema is behind this program (missing ${pending.join(', ')}): start this version of the server once to migrate it, or use the version that matches the database.\n`,
        );
        return 1;
      }
      return await spec.run(database, args, terminal);
    } catch (error) {
      err(`Could not read the registrations: ${describeError(error)}\n`);
      return 1;
    } finally {
      await database.close();
    }
  }
  return { name: spec.name, summary: spec.summary, usage, run };
}

/** The --since option: an ISO date or date-time; throws when it is not. */
export function parseSince(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const since = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(since.getTime())) {
    throw new Error(`--since must be an ISO date such as 2025-01-31, not "${value}"`);
  }
  return since;
}

/**
 * A phone as an argument or a file gives it, as the form takes it (Arabic-Indic digits, spaces,
 * +966 or 05… all name one number), made into 9665XXXXXXXX; throws with why not.
 */
export function parsePhone(text: string): string {
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
 * or the semicolon of locales whose decimal mark is a comma), for an import: `columnsOf` reads
 * the header (and throws when it does not name the columns needed), `rowOf` each other row that
 * is not all empty cells (Excel writes them under a table), with its line number. When the
 * file is not such a CSV file, says so on `err` ("Nothing changed") and gives undefined, before
 * anything is changed. It is read as a stream and only the rows are kept: read whole, 1,000,000
 * empty rows under a table (4 MB) took 690 MB of memory.
 */
export async function readCsv<Columns, Row>(
  file: string,
  columnsOf: (header: string[]) => Columns,
  rowOf: (columns: Columns, record: string[], line: number) => Row,
  err: Terminal['err'],
): Promise<Row[] | undefined> {
  try {
    return await readRows(file, columnsOf, rowOf);
  } catch (error) {
    err(`Nothing changed: ${visible((error as Error).message)}\n`);
    return undefined;
  }
}

async function readRows<Columns, Row>(
  file: string,
  columnsOf: (header: string[]) => Columns,
  rowOf: (columns: Columns, record: string[], line: number) => Row,
): Promise<Row[]> {
  let columns: Columns | undefined;
  const rows: Row[] = [];
  const parser = parse({
    bom: true,
    delimiter: await delimiterOf(file),
    relax_column_count: true,
    skip_empty_lines: true,
    // Each record is read here, as it is parsed, and dropped.
    on_record: (record: string[], { lines }) => {
      if (columns === undefined) columns = columnsOf(record);
      else if (record.some((value) => value.trim() !== ''))
        rows.push(rowOf(columns, record, lines));
      return null;
    },
  });
  try {
    await pipeline(createReadStream(file), utf8, parser);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw new Error(`the file is not CSV: ${error.message}`, { cause: error });
  }
  if (columns === undefined) columnsOf([]);
  return rows;
}

// What a terminal acts on or reorders a line by: control, format (bidi among them) and
// line-separator characters.
const unsafe = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * Text as it may reach a terminal: the unsafe characters are shown as \u{…} escapes, so a stored
 * id or a cell of a file can neither move the cursor, recolour the screen nor start a forged line.
 */
export function visible(text: string): string {
  return text.replace(unsafe, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

/**
 * A value as JSON for a terminal: the characters `visible` escapes are written as JSON's \uXXXX
 * escapes, so the output is still JSON and reads back as stored. JSON.stringify escapes the
 * other controls itself; the only one left raw is the indentation's line feed.
 */
export function visibleJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(unsafe, (char) =>
    char === '\n'
      ? char
      : // Each UTF-16 unit: a character past U+FFFF (a tag) is a surrogate pair in JSON.
        char
          .split('')
          .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
          .join(''),
  );
}
