import { sql, type CreateTableBuilder, type Kysely } from 'kysely';

// Issue 36: the finished days' counts, kept by the keys the programme's page asks for
// (count-rollups.ts), and how many times anything has changed each day's counts since. On
// SQLite the kept rows are the key's own B-tree (WITHOUT ROWID): a period's rows are read in
// key order, not looked up one by one from an index.
export async function up(db: Kysely<unknown>): Promise<void> {
  await create(db, true);
}

const keys = ['day', 'marketing_id', 'package_key', 'utm_source', 'utm_campaign'] as const;
/** The counts a kept row holds (the next migration makes the table again with them). */
export const rollupCounts = [
  'visits',
  'unique_visitors',
  'leads',
  'repeats',
  'contacted',
  'qualified',
  'clients',
  'lost',
  'flagged',
  'not_credited',
  'awaiting_review',
] as const;

async function create(db: Kysely<unknown>, withoutRowid: boolean): Promise<void> {
  let rollups: CreateTableBuilder<string, string> = db.schema
    .createTable('count_rollups')
    .addColumn('by', 'text', (column) => column.notNull());
  for (const key of keys) rollups = rollups.addColumn(key, 'text', (column) => column.notNull());
  for (const count of rollupCounts) {
    rollups = rollups.addColumn(count, 'integer', (column) => column.notNull());
  }
  await rollups
    // The day last: a period's rows of one key come in that key's order, added up as they come.
    .addPrimaryKeyConstraint('count_rollups_pkey', ['by', ...keys.slice(1), 'day'])
    .$call((table) => (withoutRowid ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  await db.schema
    .createTable('count_rollup_days')
    .addColumn('by', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('version', 'text', (column) => column.notNull())
    .addColumn('changes', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('count_rollup_days_pkey', ['by', 'day'])
    .execute();
  await db.schema
    .createTable('count_day_changes')
    .addColumn('day', 'text', (column) => column.primaryKey())
    .addColumn('changes', 'integer', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('count_day_changes').execute();
  await db.schema.dropTable('count_rollup_days').execute();
  await db.schema.dropTable('count_rollups').execute();
}

export const postgres = { up: (db: Kysely<unknown>) => create(db, false), down };
