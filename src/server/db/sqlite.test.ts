import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrateToLatest } from './migrate';
import { openSqlite } from './sqlite';

describe('openSqlite', () => {
  it('creates the folder, and a long read (the export) never holds up a sign-up', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tasjeel-sqlite-'));
    const file = join(dir, 'nested', 'registrations.db');
    const database = openSqlite(file);
    onTestFinished(async () => {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    });
    await migrateToLatest(database);
    expect(existsSync(file)).toBe(true);

    const insert = (id: string) =>
      database.db
        .insertInto('registrations')
        .values({
          id,
          created_at: '2026-11-23T00:00:00.000Z',
          name: 'سارة',
          email: null,
          phone: '966512345678',
          notes: 'تجربة مجانية',
          marketing_id: null,
          package_key: null,
          source: null,
          repeat_of: null,
          utm_source: null,
          utm_medium: null,
          utm_campaign: null,
          utm_term: null,
          utm_content: null,
          privacy_url: '',
          privacy_version: '',
          channel: 'api',
          privacy_attested: 0,
          address_hash: '',
          served_at: null,
        })
        .execute();
    await insert('first');
    const reader = new BetterSqlite3(file, { readonly: true });
    onTestFinished(() => {
      reader.close();
    });
    const count = reader.prepare('select count(*) as n from registrations').pluck();
    reader.exec('begin');
    expect(count.get()).toBe(1);

    // Without WAL the commit would wait for the reader's lock, then fail after busy_timeout.
    await insert('second');
    expect(count.get()).toBe(1);
    reader.exec('commit');
    expect(count.get()).toBe(2);
  });
});
