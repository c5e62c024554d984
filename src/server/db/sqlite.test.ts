import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openSqlite } from './sqlite';

describe('openSqlite', () => {
  it('creates the folder and opens the file for durable, patient writes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tasjeel-sqlite-'));
    const { db } = openSqlite(join(dir, 'nested', 'registrations.db'));
    onTestFinished(async () => {
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    });
    const pragma = async (name: string) =>
      Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0];

    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(2); // FULL
    expect(await pragma('busy_timeout')).toBe(5000);
    expect(await pragma('foreign_keys')).toBe(1);
  });
});
