import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { Client } from 'pg';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { buildPayload, registrationSchema, type Utm } from '../domain/registration';
import { marketerToken, e2eMarketerAuthSecret } from '../../testing/marketer-auth';
import { openDatabase } from './db/database';
import type { SignUpChannel } from './db/schema';
import { loadConfig } from './env';
import { createLeadStatuses } from './leads/lead-statuses';
import { deleteSubmissions } from './registrations/personal-data';
import { exportFields } from './cli/export';
import { personCommand, postgresErasureNote, postgresErasureVacuum } from './cli/person';
import { reportCommand } from './cli/report';
import {
  buildTestApp,
  describeOnBackends,
  type TestBackend,
} from '../../testing/server-test-helpers';
import { newWebhookSecret } from '../../testing/webhook-receiver';
import { eventWaitMs } from '../../testing/event-wait';

// Issue 15 (docs/personal-data.md): submissions past RETENTION_DAYS deleted at start (and daily),
// a person's data found and erased by `npm run person`, and the report's totals kept through both.

/** Retention runs in the background from the start: its one log line says a run has ended. */
const retentionRan = (log: () => string) =>
  vi.waitFor(() => expect(log()).toContain('submissions past RETENTION_DAYS deleted'), {
    timeout: 10_000,
  });

const now = new Date('2025-04-10T12:00:00.000Z');

interface SignUp {
  at: string;
  phone: string;
  name?: string;
  email?: string;
  packageName?: string;
  marketingId?: string;
  utm?: Utm;
  channel?: SignUpChannel;
}

const notice = { PRIVACY_URL: 'https://provider.example/privacy', PRIVACY_VERSION: '2026-11' };

/**
 * A database with sign-ups (and their webhook events, never delivered: the URL answers nothing),
 * the app closed; returns its URL and readers of its rows.
 */
async function storedSignUps(backend: TestBackend, signUps: SignUp[]) {
  const clock = { now };
  const stored = await buildTestApp(
    backend,
    { WEBHOOK_URL: 'http://127.0.0.1:9/never', WEBHOOK_SECRET: newWebhookSecret(), ...notice },
    { now: () => clock.now, webhookDelivery: { pollMs: 3_600_000 } },
  );
  for (const signUp of signUps) {
    const { at, phone, name = 'سارة', email = '', packageName, marketingId, utm } = signUp;
    clock.now = new Date(at);
    await stored.services.registrations.register(
      registrationSchema.parse(
        buildPayload({ name, email, phone }, { packageName, marketingId }, utm),
      ),
      clock.now,
      signUp.channel ?? 'api',
    );
  }
  await stored.app.close();
  return stored;
}

/** Starts the server again on that database, as a restart or a second instance would. */
async function restart(backend: TestBackend, databaseUrl: string, env: Record<string, string>) {
  return buildTestApp(backend, env, {
    now: () => now,
    config: { database: loadConfig({ DATABASE_URL: databaseUrl }).database },
  });
}

async function report(databaseUrl: string, ...argv: string[]): Promise<string> {
  let text = '';
  const code = await reportCommand.run(
    argv,
    { DATABASE_URL: databaseUrl },
    { out: (chunk) => (text += chunk), err: (chunk) => expect.fail(chunk) },
  );
  expect(code).toBe(0);
  return text;
}

async function person(databaseUrl: string, argv: string[], confirm?: () => Promise<boolean>) {
  let out = '';
  let err = '';
  const code = await personCommand.run(
    argv,
    { DATABASE_URL: databaseUrl },
    { out: (text) => (out += text), err: (text) => (err += text), confirm },
  );
  return { code, out, err, json: out === '' ? undefined : JSON.parse(out) };
}

const premium42 = { packageName: 'premium_reco', marketingId: '42' };

/** How many changes of status are stored, whoever's. */
async function statusChangeCount(databaseUrl: string): Promise<number> {
  const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
  try {
    const rows = await database.db.selectFrom('lead_status_changes').select('id').execute();
    return rows.length;
  } finally {
    await database.close();
  }
}

// Each test runs the command lines (report, person) on its database several times; on
// PostgreSQL that is a few seconds, near Vitest's 5 s default on a busy machine.
vi.setConfig({ testTimeout: 20_000 });

describeOnBackends('on $name', (backend) => {
  describe('RETENTION_DAYS', () => {
    // 30 days before `now` is 2025-03-11T12:00Z.
    const signUps: SignUp[] = [
      { at: '2025-03-01T10:00:00.000Z', phone: '966500000001', ...premium42 },
      // A repeat, sent from marketer 7's link: credited to 42, as the lead it repeats.
      {
        at: '2025-03-01T20:00:00.000Z',
        phone: '966500000001',
        packageName: 'premium_reco',
        marketingId: '7',
      },
      { at: '2025-03-11T11:00:00.000Z', phone: '966500000002', ...premium42 },
      // Within the limit, but its lead is past it: they go together.
      {
        at: '2025-03-12T10:00:00.000Z',
        phone: '966500000002',
        packageName: 'premium_reco',
        marketingId: '7',
      },
      { at: '2025-03-11T13:00:00.000Z', phone: '966500000003' },
    ];

    it('deletes at start the submissions past the limit and their events, keeping the report', async () => {
      const { databaseUrl, rows, events } = await storedSignUps(backend, signUps);
      expect(await events()).toHaveLength(5);
      const before = [
        await report(databaseUrl),
        await report(databaseUrl, '--since', '2025-03-02'),
      ];
      expect(before[0]).toContain(
        '42         premium_reco       0                0      2        2',
      );

      const { app, log } = await restart(backend, databaseUrl, { RETENTION_DAYS: '30' });
      await app.ready();
      await retentionRan(log);

      expect((await rows()).map((row) => row.phone)).toEqual(['966500000003']);
      const kept = await events();
      expect(kept.map((event) => event.subject_id)).toEqual([(await rows())[0]!.id]);
      expect(await report(databaseUrl)).toBe(before[0]);
      expect(await report(databaseUrl, '--since', '2025-03-02')).toBe(before[1]);
      // How many, never which.
      expect(log()).toContain('"submissions":4,"webhookEvents":4');
      expect(log()).not.toMatch(/966500000001|966500000002|سارة/);
      for (const { id } of await rows()) expect(log()).not.toContain(id);

      // A second instance, or a restart, finds nothing more to delete and counts nothing twice.
      await app.close();
      const second = await restart(backend, databaseUrl, { RETENTION_DAYS: '30' });
      await second.app.ready();
      await retentionRan(second.log);
      expect(second.log()).toContain('"submissions":0,"webhookEvents":0');
      expect(await rows()).toHaveLength(1);
      expect(await report(databaseUrl)).toBe(before[0]);
    });

    // Several instances are PostgreSQL's (SQLite serves one). Two SQLite handles in one process
    // cannot both wait: the second's wait for the write lock blocks the event loop the first
    // needs to finish; `npm run person` beside the server is another process, which can.
    it.runIf(backend.database === 'postgres')(
      'two instances deleting at once delete and count each row once',
      async () => {
        const { databaseUrl, rows } = await storedSignUps(backend, signUps);
        const before = await report(databaseUrl);
        const config = loadConfig({ DATABASE_URL: databaseUrl }).database;
        const instances = [await openDatabase(config), await openDatabase(config)];
        onTestFinished(async () => {
          await Promise.all(instances.map((database) => database.close()));
        });
        const createdBefore = '2025-03-11T12:00:00.000Z';
        const deleted = await Promise.all(
          instances.map((database) => deleteSubmissions(database, { createdBefore })),
        );
        expect(deleted.map(({ ids }) => ids.length).sort()).toEqual([0, 4]);
        expect(await rows()).toHaveLength(1);
        expect(await report(databaseUrl)).toBe(before);
      },
    );

    it('leaves the report per link, per campaign and the marketer’s numbers agreeing, outcomes too', async () => {
      const campaign = { utm_source: 'whatsapp', utm_campaign: 'ramadan' };
      const { databaseUrl, rows } = await storedSignUps(backend, [
        { at: '2025-03-01T10:00:00.000Z', phone: '966500000001', ...premium42, utm: campaign },
        { at: '2025-03-01T11:00:00.000Z', phone: '966500000002', ...premium42, utm: campaign },
        { at: '2025-04-09T10:00:00.000Z', phone: '966500000003', ...premium42 },
      ]);
      // What the CRM said of them before the oldest two were past the limit.
      const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
      const statuses = createLeadStatuses(database);
      await statuses.change({ phone: '966500000001' }, 'client', 'api', now);
      await statuses.change({ phone: '966500000002' }, 'qualified', 'api', now);
      await statuses.change({ phone: '966500000002' }, 'lost', 'api', now);
      await statuses.change({ phone: '966500000003' }, 'client', 'cli', now);
      await database.close();
      const before = await report(databaseUrl, '--format', 'csv');
      expect(before).toContain('42,premium_reco,0,0,3,0,,0,0,2,1,66.7');

      const { app, log } = await restart(backend, databaseUrl, {
        RETENTION_DAYS: '30',
        MARKETER_AUTH_SECRET: e2eMarketerAuthSecret,
      });
      await app.ready();
      await retentionRan(log);
      expect(await rows()).toHaveLength(1);
      // Their history went with them; the kept lead's stays.
      expect(await statusChangeCount(databaseUrl)).toBe(1);

      expect(await report(databaseUrl, '--format', 'csv')).toBe(before);
      const byCampaign = await report(databaseUrl, '--format', 'csv', '--by', 'campaign');
      expect(byCampaign).toContain('whatsapp,ramadan,0,0,2,0,,0,0,1,1,50.0');
      expect(byCampaign).toContain(',,0,0,1,0,,0,0,1,0,100.0');
      const stats = await app.inject({
        url: '/api/marketer/stats?days=90',
        headers: { authorization: `Bearer ${await marketerToken('42')}` },
      });
      expect(stats.json()).toMatchObject({
        totals: { sign_ups: 3, clients: 2, client_percent: 66.7 },
      });
    });

    it('keeps everything when unset', async () => {
      const { databaseUrl, rows } = await storedSignUps(backend, signUps);
      const { app } = await restart(backend, databaseUrl, {});
      await app.ready();
      expect(await rows()).toHaveLength(5);
    });
  });

  describe('npm run person', () => {
    const people: SignUp[] = [
      {
        at: '2025-04-10T09:00:00.000Z',
        phone: '966500000001',
        name: 'ريم الحازمي',
        email: 'Reem@Example.com',
        ...premium42,
      },
      // A repeat with another e-mail: still hers.
      { at: '2025-04-10T10:00:00.000Z', phone: '966500000001', name: 'ريم الحازمي', ...premium42 },
      {
        at: '2025-04-10T11:00:00.000Z',
        phone: '966500000001',
        name: 'ريم الحازمي',
        channel: 'form',
      },
      {
        at: '2025-04-10T11:30:00.000Z',
        phone: '966500000002',
        name: 'نورة',
        email: 'noura@example.com',
        ...premium42,
      },
    ];

    it('prints every submission of a phone typed in any form, with its consent and webhook events', async () => {
      const { databaseUrl, rows } = await storedSignUps(backend, people);
      const hers = (await rows()).filter((row) => row.phone === '966500000001');
      for (const phone of ['966500000001', '٠٥٠٠٠٠٠٠٠١', '+966 50 000 0001', '0500000001']) {
        const { code, json } = await person(databaseUrl, ['--phone', phone]);
        expect(code).toBe(0);
        expect(json.phone).toBe('966500000001');
        expect(json.submissions.map((row: { id: string }) => row.id)).toEqual(
          hers.map((row) => row.id),
        );
      }
      const { json } = await person(databaseUrl, ['--phone', '966500000001']);
      expect(json.submissions[0]).toMatchObject({
        created_at: '2025-04-10T09:00:00.000Z',
        name: 'ريم الحازمي',
        email: 'Reem@Example.com',
        marketing_id: '42',
        package_key: 'premium_reco',
        repeat_of: null,
        utm_source: null,
        utm_campaign: null,
        privacy_url: notice.PRIVACY_URL,
        privacy_version: '2026-11',
        channel: 'api',
        webhook_events: [{ type: 'registration.created', status: 'pending', delivered_at: null }],
      });
      // The export's columns, in its order, then the history and the events.
      expect(Object.keys(json.submissions[0])).toEqual([
        ...exportFields,
        'status_history',
        'reviews',
        'webhook_events',
      ]);
      expect(json.submissions[2]).toMatchObject({
        privacy_url: notice.PRIVACY_URL,
        privacy_version: '2026-11',
        channel: 'form',
        privacy_attested: false,
      });
      expect(json.submissions[1]).toMatchObject({
        repeat_of: hers[0]!.id,
        webhook_events: [{ type: 'registration.repeated', status: 'pending' }],
      });
    });

    it('finds by e-mail, whatever its case, only the submissions that gave it', async () => {
      const { databaseUrl, rows } = await storedSignUps(backend, people);
      const { code, json } = await person(databaseUrl, ['--email', 'reem@example.COM']);
      expect(code).toBe(0);
      expect(json.submissions.map((row: { id: string }) => row.id)).toEqual([
        (await rows())[0]!.id,
      ]);
      expect(
        (await person(databaseUrl, ['--email', 'nobody@example.com'])).json.submissions,
      ).toEqual([]);
    });

    it('--erase deletes every row, change of status and event of that person, nothing else, and keeps the report', async () => {
      const { databaseUrl, rows, events } = await storedSignUps(backend, people);
      const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
      const statuses = createLeadStatuses(database);
      await statuses.change({ phone: '966500000001' }, 'contacted', 'api', now);
      await statuses.change({ phone: '966500000001' }, 'client', 'cli', now);
      await statuses.change({ phone: '966500000002' }, 'client', 'api', now);
      await database.close();
      const before = await report(databaseUrl);
      expect(
        (await person(databaseUrl, ['--phone', '966500000001'])).json.submissions.map(
          (row: { status_history: unknown[] }) => row.status_history.length,
        ),
      ).toEqual([0, 0, 2]);
      const hers = (await rows())
        .filter((row) => row.phone === '966500000001')
        .map((row) => row.id);

      const { code, json, err } = await person(databaseUrl, [
        '--phone',
        '٠٥٠٠٠٠٠٠٠١',
        '--erase',
        '--yes',
      ]);
      expect(code).toBe(0);
      expect(json.erased).toEqual({
        submissions: 3,
        status_changes: 2,
        reviews: 0,
        webhook_events: 5,
        ids: hers,
      });
      // What the operator still has to do on PostgreSQL, said where the erasure is run.
      expect(err).toBe(backend.database === 'postgres' ? postgresErasureNote : '');
      expect((await rows()).map((row) => row.phone)).toEqual(['966500000002']);
      const kept = (await rows())[0]!.id;
      const keptChange = (await person(databaseUrl, ['--phone', '966500000002'])).json
        .submissions[0].status_history;
      expect(keptChange).toHaveLength(1);
      // Hers are gone, history and events; Noura's stays, with the event of her change.
      expect(await statusChangeCount(databaseUrl)).toBe(1);
      expect((await events()).map((event) => event.type)).toEqual([
        'registration.created',
        'registration.status_changed',
      ]);
      expect((await events())[0]!.subject_id).toBe(kept);
      expect(await report(databaseUrl)).toBe(before);

      // Erasing again finds nothing; an erased person who signs up again is a new lead.
      expect(
        (await person(databaseUrl, ['--phone', '966500000001', '--erase', '--yes'])).json.erased,
      ).toEqual({
        submissions: 0,
        status_changes: 0,
        reviews: 0,
        webhook_events: 0,
        ids: [],
      });
      const { services } = await restart(backend, databaseUrl, {});
      const again = await services.registrations.register(
        registrationSchema.parse(
          buildPayload({ name: 'ريم', email: '', phone: '966500000001' }, premium42),
        ),
        new Date('2025-04-10T12:00:00.000Z'),
        'api',
      );
      expect(again.repeat).toBe(false);
    });

    it("never gives nor erases another person's rows to someone who typed their phone with an e-mail", async () => {
      const victim = people[3]!;
      const { databaseUrl, rows } = await storedSignUps(backend, [
        victim,
        // Noura's phone, typed by someone else with their own e-mail: a repeat of her lead.
        { ...victim, at: '2025-04-10T11:45:00.000Z', name: 'محتال', email: 'someone@evil.example' },
      ]);
      const [hers, theirs] = await rows();
      const { json } = await person(databaseUrl, ['--email', 'someone@evil.example']);
      expect(json.submissions.map((row: { id: string }) => row.id)).toEqual([theirs!.id]);
      expect(JSON.stringify(json)).not.toContain('نورة');
      expect(JSON.stringify(json)).not.toContain('noura@example.com');

      const erased = await person(databaseUrl, [
        '--email',
        'someone@evil.example',
        '--erase',
        '--yes',
      ]);
      expect(erased.json.erased.ids).toEqual([theirs!.id]);
      expect(await rows()).toEqual([hers]);
    });

    it("never gives nor erases by e-mail the outcome of the phone's owner, whose repeat came after", async () => {
      const victim = people[3]!;
      const { databaseUrl, rows, events } = await storedSignUps(backend, [
        // Someone typed Noura's phone with their own e-mail first: the lead is their row.
        { ...victim, at: '2025-04-10T11:15:00.000Z', name: 'محتال', email: 'someone@evil.example' },
        victim,
      ]);
      const [theirs, hers] = await rows();
      expect(hers!.repeat_of).toBe(theirs!.id);
      // The provider calls the phone: Noura answers, and becomes a client.
      const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
      const statuses = createLeadStatuses(database);
      const called = new Date(now.getTime() - 60_000);
      await statuses.change({ phone: victim.phone }, 'contacted', 'api', called);
      await statuses.change({ phone: victim.phone }, 'client', 'api', now);
      await database.close();
      // The outcomes of marketer 42's link: contacted, qualified, clients, lost.
      const outcomes = async () =>
        (await report(databaseUrl, '--format', 'csv'))
          .split('\r\n')
          .find((line) => line.startsWith('42,premium_reco,'))
          ?.split(',')
          .slice(7, 11);
      expect(await outcomes()).toEqual(['0', '0', '1', '0']);

      const { json } = await person(databaseUrl, ['--email', 'someone@evil.example']);
      expect(json.submissions).toHaveLength(1);
      expect(json.submissions[0]).toMatchObject({
        id: theirs!.id,
        status: null,
        status_changed_at: null,
        status_history: [],
        webhook_events: [{ type: 'registration.created' }],
      });
      expect(JSON.stringify(json)).not.toContain('client');

      const erased = await person(databaseUrl, [
        '--email',
        'someone@evil.example',
        '--erase',
        '--yes',
      ]);
      expect(erased.json.erased).toEqual({
        submissions: 1,
        status_changes: 0,
        reviews: 0,
        webhook_events: 1,
        ids: [theirs!.id],
      });
      // Her row is the lead now, with the outcome, its history and their events.
      expect(await rows()).toEqual([
        { ...hers!, repeat_of: null, status: 'client', status_changed_at: now.toISOString() },
      ]);
      const { json: left } = await person(databaseUrl, ['--phone', victim.phone]);
      expect(
        left.submissions[0].status_history.map(({ status }: { status: string }) => status),
      ).toEqual(['contacted', 'client']);
      expect((await events()).map(({ type }) => type)).toEqual([
        'registration.repeated',
        'registration.status_changed',
        'registration.status_changed',
      ]);
      // Still one client: the erased lead counts without the outcome that went on with her.
      expect(await outcomes()).toEqual(['0', '0', '1', '0']);
    });

    it('makes the oldest repeat left the lead when an erasure takes the lead', async () => {
      const { databaseUrl, rows } = await storedSignUps(backend, [
        { ...people[3]!, utm: { utm_source: 'whatsapp' } },
        { ...people[3]!, at: '2025-04-10T11:40:00.000Z', email: 'first@example.com' },
        { ...people[3]!, at: '2025-04-10T11:50:00.000Z', email: 'second@example.com' },
        { ...people[3]!, at: '2025-04-10T11:55:00.000Z', email: '' },
      ]);
      const [, first, second, third] = await rows();
      const counts = async () => [
        await report(databaseUrl),
        await report(databaseUrl, '--by', 'campaign'),
      ];
      expect((await counts())[0]).toMatch(/42\s+premium_reco\s+0\s+0\s+1\s+3\s/);

      await person(databaseUrl, ['--email', 'noura@example.com', '--erase', '--yes']);
      expect((await rows()).map(({ id, repeat_of }) => [id, repeat_of])).toEqual([
        [first!.id, null],
        [second!.id, first!.id],
        [third!.id, first!.id],
      ]);
      // The erased lead still counts, as a deleted lead; the repeat left first is a lead now.
      const [byLink, byCampaign] = await counts();
      expect(byLink).toMatch(/42\s+premium_reco\s+0\s+0\s+2\s+2\s/);
      // whatsapp was hers alone: kept as other (below).
      expect(byCampaign).toMatch(/\(other\)\s+\(other\)\s+0\s+0\s+1\s+0/);
      expect(byCampaign).toMatch(/\(none\)\s+\(none\)\s+0\s+0\s+1\s+2/);
    });

    it('keeps an erased campaign’s name only where it was not one person’s alone, visits alike', async () => {
      const ahmed = { utm_source: 'sms', utm_campaign: 'ahmed-0501234567' };
      const ramadan = { utm_source: 'ads', utm_campaign: 'ramadan' };
      const winter = { utm_source: 'tiktok', utm_campaign: 'winter' };
      const general = { packageName: 'premium_reco' };
      const { databaseUrl } = await storedSignUps(backend, [
        { at: '2025-04-10T09:00:00.000Z', phone: '966500000001', ...premium42, utm: ahmed },
        { at: '2025-04-10T09:10:00.000Z', phone: '966500000002', ...premium42, utm: ramadan },
        { at: '2025-04-10T09:20:00.000Z', phone: '966500000003', ...premium42, utm: ramadan },
        // Through a general link (no marketer), two people too.
        { at: '2025-04-10T09:30:00.000Z', phone: '966500000004', ...general, utm: winter },
        { at: '2025-04-10T09:40:00.000Z', phone: '966500000005', ...general, utm: winter },
      ]);
      const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
      onTestFinished(() => database.close());
      const visits = { day: '2025-04-09', marketing_id: '42', package_key: 'premium_reco' };
      await database.db
        .insertInto('visit_totals')
        .values([
          { ...visits, ...ahmed, visits: 3, visitors: 2 },
          { ...visits, ...ramadan, visits: 5, visitors: 4 },
        ])
        .execute();
      await createLeadStatuses(database).change({ phone: '966500000001' }, 'client', 'api', now);
      const campaigns = () => report(databaseUrl, '--by', 'campaign', '--format', 'csv');
      expect(await campaigns()).toContain('sms,ahmed-0501234567,3,2,1,0,50.0,0,0,1,0,100.0');

      await deleteSubmissions(database, { phone: '966500000001' });
      await deleteSubmissions(database, { phone: '966500000002' });
      await deleteSubmissions(database, { phone: '966500000004' });
      const after = await campaigns();
      // His link named him: its visits and his lead, a client, count as other now.
      expect(after).not.toContain('ahmed');
      expect(after).toContain('(other),(other),3,2,1,0,50.0,0,0,1,0,100.0');
      // Two people signed up through ramadan: it keeps its name, one of them erased.
      expect(after).toContain('ads,ramadan,5,4,2,0,50.0,0,0,0,0,0.0');
      expect(after).toMatch(/^tiktok,winter,0,0,2,/m);
    });

    it('--erase asks first: a no erases nothing, and without a terminal it needs --yes', async () => {
      const { databaseUrl, rows } = await storedSignUps(backend, people);
      const declined = await person(
        databaseUrl,
        ['--email', 'reem@example.com', '--erase'],
        async () => false,
      );
      expect(declined.code).toBe(1);
      expect(declined.err).toContain('Nothing erased.');
      const refused = await person(databaseUrl, ['--phone', '966500000001', '--erase']);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('--yes');
      expect(await rows()).toHaveLength(4);

      const confirmed = await person(
        databaseUrl,
        ['--email', 'reem@example.com', '--erase'],
        async () => true,
      );
      // Her e-mail was given on her first submission only: its repeat (no e-mail) stays.
      expect(confirmed.json.erased.submissions).toBe(1);
      expect(await rows()).toHaveLength(3);
    });

    it('leaves no page of the database holding an erased person’s phone, e-mail, name, campaign or a note about them, once the advice is run', async () => {
      // Unlike every other test's, so that a page of another test's schema (or of the
      // statistics all schemas share) holding them could only be this test's.
      const tag = randomBytes(4).toString('hex');
      const erased = {
        phone: `9665${String(randomInt(1e8)).padStart(8, '0')}`,
        email: `p${tag}@example.com`,
        name: `ليلى ${tag}`,
        campaign: `layla-${tag}`,
        note: `called ${tag}, she said the other marketer never called`,
      };
      const kept = { phone: `9665${String(randomInt(1e8)).padStart(8, '0')}`, name: `نورة ${tag}` };
      const clock = { now: new Date('2026-11-24T10:00:00.000Z') };
      const { app, services, databaseUrl } = await buildTestApp(
        backend,
        { MARKETER_AUTH_SECRET: e2eMarketerAuthSecret },
        { now: () => clock.now },
      );
      const utm = { utm_source: 'sms', utm_campaign: erased.campaign };
      const visit = async () => {
        await app.inject({
          url: `/register/register-client/premium_reco/42?${new URLSearchParams(utm)}`,
          remoteAddress: '198.51.100.7',
          headers: { 'user-agent': 'Mozilla/5.0 (Linux; Android 14) Chrome/126.0 Mobile' },
        });
        await services.visits.flush();
      };
      const signUp = (who: { phone: string; name: string; email?: string }, withUtm?: Utm) =>
        services.registrations.register(
          registrationSchema.parse(buildPayload({ email: '', ...who }, premium42, withUtm)),
          clock.now,
          'api',
        );
      // Their visit and lead through a link made for them; their visit the next day (the first
      // day's rolled up into visit_totals); a decision with a note about them; a change of
      // status; and the programme's page counting the finished days (count_rollups).
      await visit();
      const { phone, name, email } = erased;
      const { id } = await signUp({ phone, name, email }, utm);
      await signUp(kept);
      clock.now = new Date('2026-11-25T10:00:00.000Z');
      await visit();
      const decision = await app.inject({
        method: 'POST',
        url: `/api/program/leads/${id}/review`,
        headers: { authorization: `Bearer ${await marketerToken('manager-1', 'admin')}` },
        payload: { credited: false, note: erased.note },
      });
      expect(decision.statusCode).toBe(200);
      await services.leadStatuses.change({ id }, 'contacted', 'api', clock.now);
      clock.now = new Date('2026-11-27T10:00:00.000Z');
      const programme = async () => {
        const response = await app.inject({
          url: '/api/program/stats?days=7',
          headers: { authorization: `Bearer ${await marketerToken('manager-1', 'admin')}` },
        });
        expect(response.statusCode).toBe(200);
        // The finished days are kept in the background: once they are, the page is as kept.
        await vi.waitFor(
          async () =>
            expect(
              await services.database.db.selectFrom('count_rollups').select('day').execute(),
            ).not.toEqual([]),
          { timeout: eventWaitMs },
        );
      };
      await programme();

      const client =
        backend.database === 'postgres' ? new Client({ connectionString: databaseUrl }) : undefined;
      if (client !== undefined) {
        await client.connect();
        onTestFinished(() => client.end());
        // As autovacuum does, in time: sample values of each column kept in pg_statistic.
        await client.query('analyze');
      }
      const needles = Object.values(erased);
      const found = await pagesHolding(backend, databaseUrl, [...needles, kept.phone]);
      expect(new Set(found.map(({ needle }) => needle))).toEqual(new Set([...needles, kept.phone]));
      if (client !== undefined) {
        // Where they were: the advice must name each of these tables.
        expect(
          [
            ...new Set(found.filter((hit) => needles.includes(hit.needle)).map((hit) => hit.in)),
          ].sort(),
        ).toEqual(
          expect.arrayContaining([
            'count_rollups',
            'lead_reviews',
            'pg_statistic',
            'registrations',
            'visit_totals',
            'visits',
          ]),
        );
      }

      const erasure = await person(databaseUrl, ['--phone', erased.phone, '--erase', '--yes']);
      expect(erasure.json.erased.submissions).toBe(1);
      if (client !== undefined) {
        // Erased and vacuumed, yet still in the pages: the advice's statements are needed.
        await client.query('vacuum');
        expect(await pagesHolding(backend, databaseUrl, needles)).not.toEqual([]);
        expect(erasure.err).toBe(postgresErasureNote);
        // The erasure renamed their campaign: the kept days went, counted again when the
        // programme's page is next opened. Until then count_rollups is empty, and ANALYZE
        // leaves an empty table's statistics (their campaign among them) as they were.
        await programme();
        for (const statement of postgresErasureVacuum) {
          expect(erasure.err).toContain(statement);
          // VACUUM FULL keeps what a transaction still open may see: other tests' run beside.
          await olderTransactionsEnded(client);
          await client.query(statement);
        }
      }

      expect(await pagesHolding(backend, databaseUrl, needles)).toEqual([]);
      expect(await pagesHolding(backend, databaseUrl, [kept.phone])).not.toEqual([]);
    }, 60_000);
  });
});

/** Waits until no transaction of the database began before now (as the advice says to). */
async function olderTransactionsEnded(client: Client): Promise<void> {
  const { rows } = await client.query<{ xid: string }>(
    'select (pg_current_xact_id()::text::bigint % 4294967296)::text as xid',
  );
  await vi.waitFor(
    async () => {
      const older = await client.query<{ count: number }>(
        `select count(*)::int as count from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid()
           and (age(backend_xmin) >= age($1::xid) or age(backend_xid) >= age($1::xid))`,
        [rows[0]!.xid],
      );
      expect(older.rows[0]!.count).toBe(0);
    },
    { timeout: 30_000, interval: 50 },
  );
}

/**
 * Where the bytes of each needle (UTF-8) lie in the database, as anyone who reads its files
 * would find them. On PostgreSQL: every page of every table and index of the test's schema
 * (their TOAST too) and of pg_statistic, read through `pageinspect` as the server holds them,
 * dead rows included. On SQLite: the file and its write-ahead log.
 */
async function pagesHolding(
  backend: TestBackend,
  databaseUrl: string,
  needles: string[],
): Promise<{ needle: string; in: string }[]> {
  if (backend.database === 'sqlite') {
    const file = databaseUrl.slice('sqlite:'.length);
    const files = [file, `${file}-wal`].filter((path) => existsSync(path));
    return needles.flatMap((needle) =>
      files
        .filter((path) => readFileSync(path).includes(Buffer.from(needle)))
        .map((path) => ({ needle, in: path.slice(file.length) || 'file' })),
    );
  }
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('create extension if not exists pageinspect with schema public');
    const { rows } = await client.query<{ needle: string; in: string }>(
      `with tables as (
         select oid from pg_class
         where relnamespace = current_schema()::regnamespace or oid = 'pg_statistic'::regclass
       ), relations as (
         select oid from tables
         union select reltoastrelid from pg_class where oid in (select oid from tables)
         union select indexrelid from pg_index
           where indrelid in (select oid from tables)
             or indrelid in (select reltoastrelid from pg_class where oid in (select oid from tables))
       ), pages as (
         select c.relname as name, public.get_raw_page(c.oid::regclass::text, block::int) as page
         from pg_class as c, generate_series(0, pg_relation_size(c.oid) / 8192 - 1) as block
         where c.oid in (select oid from relations) and c.relkind in ('r', 'i', 't')
       )
       select distinct needle, name as in from pages, unnest($1::text[]) as needle
       where position(convert_to(needle, 'UTF8') in page) > 0
       order by needle, name`,
      [needles],
    );
    return rows;
  } finally {
    await client.end();
  }
}

describe('npm run person, its arguments', () => {
  it.each([
    [[]],
    [['--phone', '123']],
    [['--phone', '966500000001', '--email', 'a@b.c']],
    [['--email', 'x', '--yes']],
  ])('refuses %j with the usage', async (argv) => {
    const { code, err } = await person('sqlite::memory:', argv);
    expect(code).toBe(2);
    expect(err).toContain('usage: npm run person');
  });
});
