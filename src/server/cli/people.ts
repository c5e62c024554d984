import { personSchema } from '../../domain/people';
import { marketingIdSchema } from '../../domain/registration';
import { createPeople, type PersonPut } from '../people/people';
import { defineCommand, readCsv, visible } from './command';

/** The columns of the file, in the API's names; the first two are required. */
const columnNames = ['marketing_id', 'name', 'team_leader_id', 'email', 'active'] as const;

/** Where the header names each column (-1: not there). */
type Columns = Record<(typeof columnNames)[number], number>;

/** A row of the file to put, or why it is refused; `line` is the file's line number. */
type ImportRow = { line: number; person: PersonPut } | { line: number; refused: string };

function columnsOf(header: string[]): Columns {
  const names = header.map((name) => name.trim().toLowerCase());
  const columns = Object.fromEntries(
    columnNames.map((column) => [column, names.indexOf(column)]),
  ) as Columns;
  if (columns.marketing_id === -1 || columns.name === -1) {
    throw new Error(`the first row must name the columns: ${columnNames.join(',')}`);
  }
  return columns;
}

/** `active` as Excel writes a yes or no (TRUE, False, 1, 0); empty is true, as in the API. */
function activeOf(text: string): boolean {
  if (/^(true|1)?$/i.test(text)) return true;
  if (/^(false|0)$/i.test(text)) return false;
  throw new Error(`active is ${JSON.stringify(text.slice(0, 40))}: expected true, false, 1 or 0`);
}

function rowOf(columns: Columns, record: string[], line: number): ImportRow {
  const cell = (column: keyof Columns) =>
    columns[column] === -1 ? '' : (record[columns[column]] ?? '').trim();
  try {
    const id = marketingIdSchema.safeParse(cell('marketing_id'));
    if (!id.success) throw new Error('marketing_id is not a marketing id');
    const person = personSchema.safeParse({
      name: cell('name'),
      team_leader_id: cell('team_leader_id'),
      email: cell('email'),
      active: activeOf(cell('active')),
    });
    if (!person.success) {
      const fields = new Set(person.error.issues.map((issue) => issue.path.join('.')));
      throw new Error(`not valid: ${[...fields].join(', ')}`);
    }
    return { line, person: { ...person.data, marketing_id: id.data } };
  } catch (error) {
    return { line, refused: (error as Error).message };
  }
}

/**
 * `npm run tasjeel -- people import FILE.csv`: the programme's people from a spreadsheet, for a
 * provider whose platform does not call `PUT /api/people` (docs/program.md). Each good row is
 * put as the API puts a person; each refused one is said with its line. Exit code 1 when any
 * row was refused.
 */
export const peopleCommand = defineCommand({
  name: 'people',
  summary: "the programme's people (names and teams): a CSV file of them",
  usage: ['import FILE.csv'],
  help: `The file's first row names the columns ${columnNames.join(',')}; active is true, false, 1 or 0.`,
  options: {},
  positionals: true,
  parse(_values, positionals) {
    const [command, file, ...rest] = positionals;
    if (command !== 'import') throw new Error('expected import');
    if (file === undefined || rest.length > 0) throw new Error('import takes one file');
    return { file };
  },
  async run(database, { file }, { out, err }) {
    const rows = await readCsv(file, columnsOf, rowOf, err);
    if (rows === undefined) return 1;
    const people: PersonPut[] = [];
    for (const row of rows) {
      if ('refused' in row) err(`line ${row.line}: ${visible(row.refused)}\n`);
      else people.push(row.person);
    }
    await createPeople(database).put(people, new Date());
    const refused = rows.length - people.length;
    out(`${people.length} put, ${refused} refused\n`);
    return refused > 0 ? 1 : 0;
  },
});
