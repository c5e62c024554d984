import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { rollupCounts } from './2026-11-27T0300-count-rollups';

// Issue 36: the kept counts read a day (or a week) at a time rather than a key at a time. With
// the day last, a period's rows of one day were found only by reading every kept day of the
// key (178,000 rows for 2,000 marketers, whatever the period); with the day after `by`, a
// period reads its days' rows and no others, and a finished week is read as one row a key
// (count-rollups.ts). What is kept is only kept: the rows are dropped, and counted again when
// next asked for.
const keys = ['marketing_id', 'package_key', 'utm_source', 'utm_campaign'] as const;
const byDay = ['by', 'day', ...keys];
const byKey = ['by', ...keys, 'day'];

export const up = (db: Kysely<unknown>) => recreate(db, byDay, true);
export const down = (db: Kysely<unknown>) => recreate(db, byKey, true);
export const postgres = {
  up: (db: Kysely<unknown>) => recreate(db, byDay, false),
  down: (db: Kysely<unknown>) => recreate(db, byKey, false),
};

async function recreate(
  db: Kysely<unknown>,
  primaryKey: string[],
  withoutRowid: boolean,
): Promise<void> {
  await db.schema.dropTable('count_rollups').execute();
  await sql`delete from count_rollup_days`.execute(db);
  let rollups: CreateTableBuilder<string, string> = db.schema
    .createTable('count_rollups')
    .addColumn('by', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull());
  for (const key of keys) rollups = rollups.addColumn(key, 'text', (column) => column.notNull());
  for (const count of rollupCounts) {
    rollups = rollups.addColumn(count, 'integer', (column) => column.notNull());
  }
  await rollups
    .addPrimaryKeyConstraint('count_rollups_pkey', primaryKey)
    .$call((table) => (withoutRowid ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
}
