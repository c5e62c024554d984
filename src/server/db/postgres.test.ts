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
