import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildNotes } from '../../domain/notes';
import { createTestDatabase, testBackends } from '../../../testing/server-test-helpers';
import { loadConfig } from '../env';
import { createRegistrationRepository } from '../registrations/registration-repository';
import { createVisitRepository } from '../visits/visit-repository';
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
    expect(await pendingMigrations(database)).toEqual([
      '2026-11-23T1200-repeat-of',
      '2026-11-23T1500-webhook-events',
      '2026-11-23T1700-campaign-parameters',
      '2026-11-23T1800-marketer-stats-indexes',
      '2026-11-23T1900-sign-up-totals',
    ]);
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

  it('adds the campaign columns in place: rows stored before them are kept, without campaign', async () => {
    const test = await createTestDatabase(kind);
    onTestFinished(() => test.drop());
    const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
    onTestFinished(() => database.close());
    const { error } = await (await migrator(database)).migrateTo('2026-11-23T1500-webhook-events');
    if (error !== undefined) throw error;
    expect(await pendingMigrations(database)).toEqual([
      '2026-11-23T1700-campaign-parameters',
      '2026-11-23T1800-marketer-stats-indexes',
      '2026-11-23T1900-sign-up-totals',
    ]);
    await sql`insert into registrations (id, created_at, name, phone, notes, marketing_id)
      values ('a', '2025-03-01T09:00:00.000Z', 'سارة', '966500000001', ${notes}, '42')`.execute(
      database.db,
    );

    await sql`insert into visit_totals (day, marketing_id, package_key, visits, visitors)
      values ('2025-02-28', '42', 'premium_reco', 31, 24)`.execute(database.db);

    await migrateToLatest(database);

    const totals = await createVisitRepository(database).totals();
    expect(totals).toEqual([
      { marketingId: '42', packageKey: 'premium_reco', visits: 31, visitors: 24 },
    ]);
    expect(await createVisitRepository(database).campaignTotals()).toEqual([
      { utmSource: null, utmCampaign: null, visits: 31, visitors: 24 },
    ]);

    expect(await test.rows()).toMatchObject([
      { id: 'a', marketing_id: '42', utm_source: null, utm_campaign: null, utm_content: null },
    ]);
    const repository = createRegistrationRepository(database);
    const tagged = {
      name: 'نورة',
      phone: '966500000002',
      notes,
      utm_source: 'snapchat',
      utm_medium: 'cpc',
      utm_campaign: 'ramadan',
      utm_term: 'أسهم',
      utm_content: 'video',
    };
    await repository.register(tagged, new Date('2025-03-01T10:00:00.000Z'));
    expect((await test.rows()).find((row) => row.id !== 'a')).toMatchObject({
      name: 'نورة',
      utm_source: 'snapchat',
      utm_medium: 'cpc',
      utm_campaign: 'ramadan',
      utm_term: 'أسهم',
      utm_content: 'video',
    });
  });

  if (kind === 'postgres') {
    it('keeps the previous version’s calls working during a rolling deploy, and goes back down', async () => {
      const test = await createTestDatabase(kind);
      onTestFinished(() => test.drop());
      const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
      onTestFinished(() => database.close());
      await migrateToLatest(database);
      const arrays = (
        id: string,
        phone: string,
      ) => sql`array[${id}], array['2025-03-01T09:00:00.000Z'],
        array['سارة'], array[null]::text[], array[${phone}], array[${notes}], array['42'],
        array['premium_reco'], array['marketer_link'], array['2025-02-28T09:00:00.000Z']`;

      // The previous version calls register_sign_ups with eleven arguments, and the one before
      // it register_unless_duplicate with ten.
      await sql`select * from register_sign_ups(${arrays('a', '966500000001')}, null)`.execute(
        database.db,
      );
      await sql`select * from register_unless_duplicate(${arrays('b', '966500000002')})`.execute(
        database.db,
      );
      expect(await test.rows()).toMatchObject([
        { id: 'a', utm_source: null },
        { id: 'b', utm_source: null },
      ]);

      const { error } = await (await migrator(database)).migrateDown();
      if (error !== undefined) throw error;
      await sql`select * from register_sign_ups(${arrays('c', '966500000003')}, null)`.execute(
        database.db,
      );
      expect(await test.rows()).toHaveLength(3);
    });
  }
});
