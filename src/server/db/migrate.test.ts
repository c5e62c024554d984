import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import { buildNotes } from '../../domain/notes';
import { createTestDatabase, describeOnBackends } from '../../../testing/server-test-helpers';
import { loadConfig } from '../env';
import { createRegistrationRepository } from '../registrations/registration-repository';
import { countAll } from '../counts';
import { openDatabase } from './database';
import { migrateToLatest, migrator, pendingMigrations } from './migrate';

const notes = buildNotes({ packageName: 'premium_reco', marketingId: '42' });
// A count's columns for leads no one has called, flagged or decided on.
const noOutcome = {
  ...{ contacted: 0, qualified: 0, clients: 0, lost: 0 },
  ...{ flagged: 0, not_credited: 0, awaiting_review: 0 },
};

describeOnBackends('on $name', ({ database: kind }) => {
  it('adds repeat_of in place: sign-ups stored before it are kept as leads, and a repeat of one is linked to it', async () => {
    const test = await createTestDatabase(kind);
    onTestFinished(() => test.drop());
    const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
    onTestFinished(() => database.close());
    // The schema as the previous version left it, with its sign-ups.
    const { error } = await (await migrator(database)).migrateTo('2026-11-23T0930-visit-totals');
    if (error !== undefined) throw error;
    // The previous version's schema: what it lacks is pending, this migration first.
    expect((await pendingMigrations(database))[0]).toBe('2026-11-23T1200-repeat-of');
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
    expect(await repository.register(repeat, new Date('2025-03-01T10:00:00.000Z'), 'api')).toEqual({
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
    // The previous version's schema: what it lacks is pending, this migration first.
    expect((await pendingMigrations(database))[0]).toBe('2026-11-23T1700-campaign-parameters');
    await sql`insert into registrations (id, created_at, name, phone, notes, marketing_id)
      values ('a', '2025-03-01T09:00:00.000Z', 'سارة', '966500000001', ${notes}, '42')`.execute(
      database.db,
    );

    await sql`insert into visit_totals (day, marketing_id, package_key, visits, visitors)
      values ('2025-02-28', '42', 'premium_reco', 31, 24)`.execute(database.db);

    await migrateToLatest(database);

    // The visits kept before and the lead stored before (inserted with no package key, so
    // counted under none), both under no campaign.
    const visits = { visits: 31, unique_visitors: 24 };
    const lead = { leads: 1, repeats: 0, ...noOutcome };
    expect(await countAll(database.db, ['marketing_id', 'package_key'])).toEqual([
      {
        marketing_id: '42',
        package_key: 'premium_reco',
        ...visits,
        leads: 0,
        repeats: 0,
        ...noOutcome,
      },
      { marketing_id: '42', package_key: null, visits: 0, unique_visitors: 0, ...lead },
    ]);
    expect(await countAll(database.db, ['utm_source', 'utm_campaign'])).toEqual([
      { utm_source: null, utm_campaign: null, ...visits, ...lead },
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
    await repository.register(tagged, new Date('2025-03-01T10:00:00.000Z'), 'api');
    expect((await test.rows()).find((row) => row.id !== 'a')).toMatchObject({
      name: 'نورة',
      utm_source: 'snapchat',
      utm_medium: 'cpc',
      utm_campaign: 'ramadan',
      utm_term: 'أسهم',
      utm_content: 'video',
    });
  });

  it('keeps the counts of deleted sign-ups, under no campaign, and each event’s subject', async () => {
    const test = await createTestDatabase(kind);
    onTestFinished(() => test.drop());
    const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
    onTestFinished(() => database.close());
    const { error } = await (await migrator(database)).migrateTo('2026-11-23T1900-sign-up-totals');
    if (error !== undefined) throw error;
    expect((await pendingMigrations(database))[0]).toMatch(/^2026-11-25T09/);
    await sql`insert into registrations (id, created_at, name, phone, notes, marketing_id)
      values ('a', '2025-03-01T09:00:00.000Z', 'سارة', '966500000001', ${notes}, '42')`.execute(
      database.db,
    );
    await sql`insert into webhook_events (id, registration_id, type, status, created_at,
        next_attempt_at)
      values ('msg_1', 'a', 'registration.created', 'delivered', '2025-03-01T09:00:00.000Z',
        '2025-03-01T09:00:00.000Z')`.execute(database.db);
    await sql`insert into sign_up_totals (day, marketing_id, package_key, leads, repeats)
      values ('2025-02-01', '42', 'premium_reco', 3, 1)`.execute(database.db);

    await migrateToLatest(database);

    expect(await countAll(database.db, ['marketing_id', 'utm_source'], { repeats: true })).toEqual([
      {
        marketing_id: '42',
        utm_source: null,
        visits: 0,
        unique_visitors: 0,
        leads: 4,
        repeats: 1,
        ...noOutcome,
      },
    ]);
    expect(await test.events()).toMatchObject([{ id: 'msg_1', subject_id: 'a' }]);
    // No foreign key any more: erasure deletes a person's events itself.
    await sql`delete from registrations where id = 'a'`.execute(database.db);
    expect(await test.events()).toHaveLength(1);
  });

  it('goes back down to the previous version and up again, its rows kept', async () => {
    const test = await createTestDatabase(kind);
    onTestFinished(() => test.drop());
    const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
    onTestFinished(() => database.close());
    await migrateToLatest(database);
    await createRegistrationRepository(database, { webhookEvents: true }).register(
      { name: 'سارة', phone: '966500000001', notes },
      new Date('2025-03-01T09:00:00.000Z'),
      'api',
    );
    const { error } = await (await migrator(database)).migrateTo('2026-11-23T1900-sign-up-totals');
    if (error !== undefined) throw error;
    await migrateToLatest(database);
    const [row] = await test.rows();
    expect(await test.events()).toMatchObject([{ subject_id: row?.id, status: 'pending' }]);
  });

  it('adds the consent columns in place: rows stored before them keep empty values', async () => {
    const test = await createTestDatabase(kind);
    onTestFinished(() => test.drop());
    const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
    onTestFinished(() => database.close());
    const { error } = await (
      await migrator(database)
    ).migrateTo('2026-11-25T0920-webhook-event-subjects');
    if (error !== undefined) throw error;
    expect(await pendingMigrations(database)).toContain('2026-11-25T1300-consent-evidence');
    await sql`insert into registrations (id, created_at, name, phone, notes, marketing_id)
      values ('a', '2025-03-01T09:00:00.000Z', 'سارة', '966500000001', ${notes}, '42')`.execute(
      database.db,
    );

    await migrateToLatest(database);

    // The product did not record them: empty, not made up.
    expect(await test.rows()).toMatchObject([
      {
        id: 'a',
        name: 'سارة',
        privacy_url: '',
        privacy_version: '',
        channel: '',
        privacy_attested: 0,
      },
    ]);
    const repository = createRegistrationRepository(database, {
      privacyNotice: { url: 'https://provider.example/privacy', version: '2026-11' },
    });
    expect((await repository.list())[0]?.consent).toEqual({
      privacyUrl: '',
      privacyVersion: '',
      channel: '',
      attested: false,
    });
    await repository.register(
      { name: 'نورة', phone: '966500000002', notes },
      new Date('2025-03-01T10:00:00.000Z'),
      'form',
    );
    expect((await test.rows()).find((row) => row.id !== 'a')).toMatchObject({
      name: 'نورة',
      privacy_url: 'https://provider.example/privacy',
      privacy_version: '2026-11',
      channel: 'form',
    });
  });

  it('makes every stored lead new, a repeat without a status, and goes down and up again', async () => {
    const test = await createTestDatabase(kind);
    onTestFinished(() => test.drop());
    const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
    onTestFinished(() => database.close());
    const before = '2026-11-25T0920-webhook-event-subjects';
    const { error } = await (await migrator(database)).migrateTo(before);
    if (error !== undefined) throw error;
    await sql`insert into registrations (id, created_at, name, phone, notes, marketing_id,
        repeat_of)
      values ('a', '2025-03-01T09:00:00.000Z', 'سارة', '966500000001', ${notes}, '42', null),
        ('b', '2025-03-01T10:00:00.000Z', 'سارة', '966500000001', ${notes}, '42', 'a')`.execute(
      database.db,
    );

    await migrateToLatest(database);

    expect(
      (await test.rows()).map(({ id, status, status_changed_at }) => ({
        id,
        status,
        status_changed_at,
      })),
    ).toEqual([
      { id: 'a', status: 'new', status_changed_at: null },
      { id: 'b', status: null, status_changed_at: null },
    ]);
    const down = await (await migrator(database)).migrateTo(before);
    if (down.error !== undefined) throw down.error;
    expect(await test.rows()).toHaveLength(2);
    expect(await test.rows()).not.toContainEqual(expect.objectContaining({ status: 'new' }));
    await migrateToLatest(database);
    expect((await test.rows()).map(({ status }) => status)).toEqual(['new', null]);
  });

  it.runIf(kind === 'postgres')(
    'leaves no stored function but the counted tables’ triggers’, and puts the previous version’s back going down',
    async () => {
      const test = await createTestDatabase(kind);
      onTestFinished(() => test.drop());
      const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
      onTestFinished(() => database.close());
      const functions = async () => {
        const { rows } = await sql<{ name: string }>`select proname as name from pg_proc
          where pronamespace = current_schema()::regnamespace order by proname`.execute(
          database.db,
        );
        return rows.map(({ name }) => name);
      };
      await migrateToLatest(database);
      // Each marks the days its table's writes change (the migration count-day-triggers).
      expect(await functions()).toEqual(
        [
          'lead_flags',
          'lead_reviews',
          'registrations',
          'sign_up_totals',
          'visit_totals',
          'visits',
        ].map((table) => `${table}_counts`),
      );

      const { error } = await (
        await migrator(database)
      ).migrateTo('2026-11-23T1900-sign-up-totals');
      if (error !== undefined) throw error;
      expect(await functions()).toEqual(['register_sign_ups', 'register_unless_duplicate']);
      await sql`select * from register_sign_ups(array['b'], array['2025-03-01T09:00:00.000Z'],
        array['سارة'], array[null]::text[], array['966500000002'], array[${notes}], array['42'],
        array['premium_reco'], array['marketer_link'], array['2025-02-28T09:00:00.000Z'],
        null)`.execute(database.db);
      expect(await test.rows()).toMatchObject([{ id: 'b', marketing_id: '42' }]);
    },
  );
});
