import { sql, type Kysely } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createTestDatabase, testDatabaseUrl } from '../../../testing/server-test-helpers';
import { Client } from 'pg';
import { migrateToLatest } from './migrate';
import { openPostgres } from './postgres';
import type { Tables } from './schema';

const jit = async (db: Kysely<Tables>) =>
  (await sql<{ jit: string }>`show jit`.execute(db)).rows[0]?.jit;

describe.skipIf(testDatabaseUrl === undefined)('openPostgres', () => {
  it('runs the requests’ statements without JIT compilation, on every connection of the pool', async () => {
    const test = await createTestDatabase('postgres');
    const database = openPostgres(test.url, 2, () => {});
    onTestFinished(async () => {
      await database.close();
      await test.drop();
    });
    // One connection held by the transaction, so that the other statement opens the second.
    const [held, other] = await database.db
      .transaction()
      .execute(async (trx) => [await jit(trx), await jit(database.db)]);
    expect([held, other]).toEqual(['off', 'off']);
    expect(database.poolState?.()).toMatchObject({ inUse: 0, idle: 2 });
  });

  it('opens the counts’ connections without JIT nor parallel workers, in the URL’s search_path, from their first statement', async () => {
    const test = await createTestDatabase('postgres');
    // A setting sent by a query as a connection opens raced its first statement, and pg warned
    // of a query sent while another ran.
    const warnings: string[] = [];
    const warned = (warning: Error) => warnings.push(warning.message);
    process.on('warning', warned);
    const database = openPostgres(test.url, 1, () => {});
    onTestFinished(async () => {
      process.off('warning', warned);
      await database.close();
      await test.drop();
    });
    const setting = async (db: Kysely<Tables>, name: string) =>
      (await sql<Record<string, string>>`show ${sql.raw(name)}`.execute(db)).rows[0]?.[name];
    const schema = new URL(test.url).searchParams.get('options')!.split('=')[1]!;
    for (const db of [database.reads, database.db]) {
      expect(await setting(db, 'search_path')).toBe(schema);
    }
    expect(await setting(database.reads, 'jit')).toBe('off');
    expect(await setting(database.reads, 'max_parallel_workers_per_gather')).toBe('0');
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
  });

  it('marks the day of a row written through another search_path, as the trigger’s own schema holds it', async () => {
    const test = await createTestDatabase('postgres');
    const database = openPostgres(test.url, 1, () => {});
    onTestFinished(async () => {
      await database.close();
      await test.drop();
    });
    await migrateToLatest(database);
    const schema = new URL(test.url).searchParams.get('options')!.split('=')[1]!;
    // An operator's psql, or a script: the default search_path, the table named with its schema.
    const other = new Client({ connectionString: testDatabaseUrl });
    await other.connect();
    onTestFinished(() => other.end());
    await other.query(
      `insert into ${schema}.visit_totals (day, marketing_id, package_key, utm_source, utm_campaign, visits, visitors)
       values ('2026-01-05', '42', '', '', '', 3, 2)`,
    );
    const changes = await database.db.selectFrom('count_day_changes').selectAll().execute();
    expect(changes.map((row) => [row.day, Number(row.changes)])).toEqual([['2026-01-05', 1]]);
  });
});
