import { sql, type Kysely } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createTestDatabase, testDatabaseUrl } from '../../../testing/server-test-helpers';
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
});
