import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildNotes } from '../../domain/notes';
import { openDatabase } from '../db/database';
import { lockKey } from '../db/dialect';
import { migrateToLatest } from '../db/migrate';
import { loadConfig } from '../env';
import {
  createTestDatabase,
  describeOnBackends,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { createRegistrationRepository } from './registration-repository';
import { countAll } from '../counts';

async function openRepository({ database: kind }: TestBackend) {
  const database = await createTestDatabase(kind);
  onTestFinished(() => database.drop());
  const opened = await openDatabase(loadConfig({ DATABASE_URL: database.url }).database);
  await migrateToLatest(opened);
  const repository = createRegistrationRepository(opened);
  onTestFinished(() => opened.close());
  return { repository, database: opened, url: database.url };
}

const signUp = {
  name: 'سارة',
  phone: '966512345678',
  notes: buildNotes({ packageName: 'premium_reco', marketingId: '42' }),
  marketing_id: '42',
};
const now = new Date('2025-03-01T09:00:00.000Z');

describeOnBackends('on $name', (backend) => {
  describe('the registration repository', () => {
    it('stores 20 identical sign-ups made at once as one lead and 19 repeats of it', async () => {
      const { repository } = await openRepository(backend);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          repository.register({ ...signUp, marketing_id: `m${i}` }, now, 'api'),
        ),
      );

      expect(results.filter((result) => !result.repeat)).toHaveLength(1);
      const ids = new Set(results.map((result) => result.id));
      expect(ids.size).toBe(1);
      const rows = await repository.list();
      expect(rows).toHaveLength(20);
      const [lead, ...others] = rows.filter((row) => row.repeatOf === null);
      expect(others).toEqual([]);
      expect(lead?.id).toBe([...ids][0]);
      // The first to store wins: in call order on SQLite, the first to take the lock on PostgreSQL.
      const first = results.findIndex((result) => !result.repeat);
      expect(lead?.marketingId).toBe(`m${first}`);
      // Each repeat keeps what was sent, its own marketer among it.
      const repeats = rows.filter((row) => row.repeatOf !== null);
      expect(repeats.map((row) => row.repeatOf)).toEqual(Array(19).fill(lead?.id));
      expect(new Set(rows.map((row) => row.marketingId)).size).toBe(20);
    });

    it('counts leads and repeats per link, each repeat for the marketer of its lead', async () => {
      const { repository, database } = await openRepository(backend);
      const countByLink = (since?: string) =>
        countAll(database.db, ['marketing_id', 'package_key'], { since, repeats: true });
      await repository.register(signUp, now, 'api');
      await repository.register(
        { ...signUp, marketing_id: '7' },
        new Date('2025-03-01T10:00Z'),
        'api',
      );
      await repository.register(signUp, new Date('2025-03-02T10:00Z'), 'api');

      // No visit, outcome, flag or decision yet.
      const outcomes = {
        ...{ visits: 0, unique_visitors: 0 },
        ...{ contacted: 0, qualified: 0, clients: 0, lost: 0 },
        ...{ flagged: 0, awaiting_review: 0, not_credited: 0 },
      };
      expect(await countByLink()).toEqual([
        { marketing_id: '42', package_key: 'premium_reco', leads: 2, repeats: 1, ...outcomes },
      ]);
      expect(await countByLink('2025-03-01T09:30:00.000Z')).toEqual([
        { marketing_id: '42', package_key: 'premium_reco', leads: 1, repeats: 1, ...outcomes },
      ]);
    });

    it('lists oldest first, from `since` on', async () => {
      const { repository } = await openRepository(backend);
      const days = ['2025-03-01', '2025-03-02', '2025-03-03'];
      for (const [i, day] of days.entries()) {
        await repository.register(
          { ...signUp, phone: `96650000000${i}` },
          new Date(`${day}T12:00:00Z`),
          'api',
        );
      }

      expect((await repository.list()).map((row) => row.createdAt.slice(0, 10))).toEqual(days);
      const since = await repository.list({ since: new Date('2025-03-02T00:00:00Z') });
      expect(since.map((row) => row.phone)).toEqual(['966500000001', '966500000002']);
      expect(since[0]).toMatchObject({ packageKey: 'premium_reco', source: 'marketer_link' });
    });

    it('answers ping while open and throws once closed', async () => {
      const { repository, database } = await openRepository(backend);
      await expect(repository.ping()).resolves.toBeUndefined();
      await database.close();
      await expect(repository.ping()).rejects.toThrow();
    });
  });
});

// Sign-ups arriving together are committed together (group commit); each must still stand or
// fall on its own, and none may be answered before its commit. Each database gets a sign-up it
// refuses, and a second connection that holds what the batch needs.
const refused = { ...signUp, name: 'refuse me' };
const refusing: Record<TestBackend['database'], (url: string) => Promise<() => Promise<void>>> = {
  async sqlite(url) {
    const other = new SqliteDatabase(url.slice('sqlite:'.length));
    other.exec(`create trigger refuse before insert on registrations when new.name = 'refuse me'
      begin select raise(abort, 'refused'); end`);
    return async () => void other.close();
  },
  async postgres(url) {
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query(`create function refuse() returns trigger language plpgsql as $$
      begin raise exception 'refused'; end $$`);
    await other.query(`create trigger refuse before insert on registrations
      for each row when (new.name = 'refuse me') execute function refuse()`);
    return () => other.end();
  },
};
const holding: Record<TestBackend['database'], (url: string) => Promise<() => Promise<void>>> = {
  async sqlite(url) {
    const holder = new SqliteDatabase(url.slice('sqlite:'.length));
    holder.exec('begin immediate');
    return async () => {
      holder.exec('rollback');
      holder.close();
    };
  },
  async postgres(url) {
    // The advisory lock of the second sign-up, held past the server's 5 s statement_timeout.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    const { phone } = distinct(2);
    await holder.query(`select pg_advisory_lock(${lockKey(`sign-up ${phone}`)})`);
    return () => holder.end();
  },
};
function distinct(i: number) {
  return { ...signUp, phone: `9665000000${String(i).padStart(2, '0')}` };
}

describeOnBackends('on $name, sign-ups written in one commit', (backend) => {
  it('stores the others when the database refuses one of them', async () => {
    const { repository, url } = await openRepository(backend);
    const release = await refusing[backend.database](url);
    onTestFinished(release);

    const outcomes = await Promise.allSettled([
      repository.register(distinct(1), now, 'api'),
      repository.register({ ...refused, phone: distinct(2).phone }, now, 'api'),
      repository.register(distinct(3), now, 'api'),
    ]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((await repository.list()).map((row) => row.phone).sort()).toEqual([
      '966500000001',
      '966500000003',
    ]);
  });

  it('answers none of them when the batch cannot be written, and stores none', async () => {
    const { repository, url } = await openRepository(backend);
    const release = await holding[backend.database](url);

    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((i) => repository.register(distinct(i), now, 'api')),
    );
    await release();

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await repository.list()).toEqual([]);
  }, 15_000);
});
