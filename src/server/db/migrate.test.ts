import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildNotes } from '../../domain/notes';
import { createTestDatabase, testBackends } from '../../../testing/server-test-helpers';
import { loadConfig } from '../env';
import { createRegistrationRepository } from '../registrations/registration-repository';
import { openDatabase } from './database';
import { migrateToLatest, migrator, pendingMigrations } from './migrate';

const notes = buildNotes({ packageName: 'premium_reco', marketingId: '42' });

describe.each(testBackends)('on $name', ({ database: kind }) => {
  it('adds repeat_of in place: rows stored before it are kept as first rows', async () => {
    const test = await createTestDatabase(kind);
    onTestFinished(() => test.drop());
    const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
    onTestFinished(() => database.close());
    // The schema as the previous version left it, with its sign-ups.
    const { error } = await (await migrator(database)).migrateTo('2026-11-23T0930-visit-totals');
    if (error !== undefined) throw error;
    expect(await pendingMigrations(database)).toEqual(['2026-11-23T1200-repeat-of']);
    for (const [id, phone] of [
      ['a', '966500000001'],
      ['b', '966500000002'],
    ]) {
      await sql`insert into registrations (id, created_at, name, phone, notes, marketing_id)
        values (${id}, '2025-03-01T09:00:00.000Z', 'سارة', ${phone}, ${notes}, '42')`.execute(
        database.db,
      );
    }

    await migrateToLatest(database);

    expect(await test.rows()).toMatchObject([
      { id: 'a', phone: '966500000001', marketing_id: '42', repeat_of: null },
      { id: 'b', phone: '966500000002', marketing_id: '42', repeat_of: null },
    ]);
    // A repeat of a sign-up from before the migration is linked to it.
    const repository = createRegistrationRepository(database);
    const repeat = { name: 'سارة', phone: '966500000001', notes, marketing_id: '7' };
    expect(await repository.register(repeat, new Date('2025-03-01T10:00:00.000Z'))).toEqual({
      id: 'a',
      repeat: true,
    });
    expect((await test.rows()).filter((row) => row.repeat_of === 'a')).toHaveLength(1);
  });
});
