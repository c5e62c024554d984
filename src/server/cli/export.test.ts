import { execFile } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildNotes } from '../../domain/notes';
import { buildPayload } from '../../domain/registration';
import { openDatabase } from '../db/database';
import { pendingMigrations } from '../db/migrate';
import { loadConfig } from '../env';
import { csvCell } from '../../domain/csv';
import { exportCommand, exportFields, formatRegistrations } from './export';
import type { StoredRegistration } from '../registrations/registration-repository';
import type { LeadFlag } from '../../domain/lead-review';
import { buildTestApp, describeOnBackends } from '../../../testing/server-test-helpers';

const quiet = { out: () => {}, err: () => {} };
const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const run = promisify(execFile);

const sara: StoredRegistration = {
  id: '0b6f7c1e-1111-4222-8333-444455556666',
  createdAt: '2025-03-01T09:00:00.000Z',
  name: 'سارة',
  email: null,
  phone: '966512345678',
  notes: buildNotes({ packageName: 'premium_reco', marketingId: '42' }),
  marketingId: '42',
  packageKey: 'premium_reco',
  source: 'marketer_link',
  repeatOf: null,
  utm: { utm_source: 'snapchat', utm_campaign: 'ramadan' },
  consent: {
    privacyUrl: 'https://provider.example/privacy',
    privacyVersion: '2026-11',
    channel: 'api',
    attested: true,
  },
  status: 'client',
  statusChangedAt: '2025-03-04T10:00:00.000Z',
};
const tricky: StoredRegistration = {
  ...sara,
  id: '0b6f7c1e-2222-4222-8333-444455556666',
  name: '=HYPERLINK("http://evil.example","نعم, لا")',
  email: 'a@example.com',
  notes: 'line one\nline two',
  marketingId: null,
  packageKey: null,
  source: null,
  repeatOf: sara.id,
  // A repeat's status is its lead's.
  status: null,
  statusChangedAt: null,
  utm: {},
  // Stored before the notice and channel were kept.
  consent: { privacyUrl: '', privacyVersion: '', channel: '', attested: false },
};

// Sara's lead was flagged twice (in the order the flags are listed); the other row not at all.
const flagged = new Map([[sara.id, ['contested', 'fast'] as LeadFlag[]]]);

describe('formatRegistrations', () => {
  it('writes CSV with a BOM, a header, CRLF and Arabic intact', () => {
    const csv = formatRegistrations([sara], flagged, 'csv');
    expect(csv.startsWith('\uFEFF')).toBe(true);
    expect(csv.slice(1).split('\r\n')).toEqual([
      exportFields.join(','),
      `${sara.id},${sara.createdAt},${sara.name},,${sara.phone},${sara.notes},42,premium_reco,marketer_link,,snapchat,,ramadan,,,https://provider.example/privacy,2026-11,api,client,2025-03-04T10:00:00.000Z,true,contested fast`,
      '',
    ]);
  });

  it('quotes as RFC 4180 says and disarms formulas', () => {
    const row = formatRegistrations([tricky], flagged, 'csv').split('\r\n')[1];
    expect(row).toBe(
      `${tricky.id},${tricky.createdAt},"'=HYPERLINK(""http://evil.example"",""نعم, لا"")",` +
        `a@example.com,966512345678,"line one\nline two",,,,${sara.id},,,,,,,,,,,false,`,
    );
  });

  it.each(['\u200B=1+1', '\u00A0=1+1', '＝1+1', ' =1+1', '\u2066+1', '＠SUM(A1)', '－1'])(
    'disarms %j, a formula behind invisible or full-width characters',
    (cell) => {
      expect(csvCell(cell)).toBe(`'${cell}`);
    },
  );

  it.each(['966512345678', 'سارة - 1', 'a=b', 'a@example.com'])('leaves %j as it is', (cell) => {
    expect(csvCell(cell)).toBe(cell);
  });

  it('writes JSON Lines, one object a line, null for absent values', () => {
    const lines = formatRegistrations([sara, tricky], flagged, 'jsonl').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      id: sara.id,
      created_at: sara.createdAt,
      name: sara.name,
      email: null,
      phone: sara.phone,
      notes: sara.notes,
      marketing_id: '42',
      package_key: 'premium_reco',
      source: 'marketer_link',
      repeat_of: null,
      utm_source: 'snapchat',
      utm_medium: null,
      utm_campaign: 'ramadan',
      utm_term: null,
      utm_content: null,
      privacy_url: 'https://provider.example/privacy',
      privacy_version: '2026-11',
      channel: 'api',
      status: 'client',
      status_changed_at: '2025-03-04T10:00:00.000Z',
      privacy_attested: true,
      flags: 'contested fast',
    });
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({
      repeat_of: sara.id,
      privacy_url: '',
      privacy_version: '',
      channel: '',
      status: null,
      status_changed_at: null,
      privacy_attested: false,
      flags: '',
    });
    expect(Object.keys(JSON.parse(lines[1] ?? ''))).toEqual([...exportFields]);
  });

  it('writes only the header when there is nothing to export', () => {
    expect(formatRegistrations([], flagged, 'csv')).toBe(`\uFEFF${exportFields.join(',')}\r\n`);
    expect(formatRegistrations([], flagged, 'jsonl')).toBe('');
  });
});

describe('runExport', () => {
  it.each([
    [[]],
    [['--format', 'xml']],
    [['--format', 'csv', '--since', 'last week']],
    [['--format', 'csv', '--unknown']],
    [['--format', 'csv', 'extra']],
  ])('refuses %j with exit code 2 and a message', async (argv) => {
    let message = '';
    const code = await exportCommand.run(argv, {}, { ...quiet, err: (text) => (message += text) });
    expect(code).toBe(2);
    expect(message).toContain('usage: npm run export');
  });

  it('refuses to create a database that is not there', async () => {
    let message = '';
    const env = { DATABASE_URL: 'sqlite:/nonexistent/tasjeel/registrations.db' };
    const code = await exportCommand.run(['--format', 'csv'], env, {
      ...quiet,
      err: (text) => (message += text),
    });
    expect(code).toBe(1);
    expect(message).toContain('No database at /nonexistent/tasjeel/registrations.db');
  });

  it('says so in one line, exit code 1, when PostgreSQL does not answer', async () => {
    let message = '';
    const env = { DATABASE_URL: 'postgres://tasjeel:s3cret@127.0.0.1:1/tasjeel' };
    const code = await exportCommand.run(['--format', 'csv'], env, {
      ...quiet,
      err: (text) => (message += text),
    });
    expect(code).toBe(1);
    expect(message).toMatch(/^Could not read the registrations: .*ECONNREFUSED.*\n$/);
    expect(message).not.toContain('s3cret');
  });
});

describeOnBackends('on $name', (backend) => {
  describe('npm run export', () => {
    it('writes --output readable by its owner only, even over an existing file', async () => {
      const { app, databaseUrl } = await buildTestApp(backend);
      const values = { name: 'سارة', email: '', phone: '966512345678' };
      await app.inject({
        method: 'POST',
        url: '/api/external-register',
        payload: buildPayload(values, {}),
      });
      const file = join(await mkdtemp(join(tmpdir(), 'tasjeel-export-')), 'leads.csv');
      await writeFile(file, 'old', { mode: 0o644 });
      const env = { DATABASE_URL: databaseUrl };
      expect(await exportCommand.run(['--format', 'csv', '--output', file], env, quiet)).toBe(0);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await readFile(file, 'utf8')).toContain(`,${values.name},,${values.phone},`);
    });

    it('reads only DATABASE_URL: a server setting that would stop the server does not stop it', async () => {
      const { app, databaseUrl } = await buildTestApp(backend);
      const values = { name: 'سارة', email: '', phone: '966512345678' };
      await app.inject({
        method: 'POST',
        url: '/api/external-register',
        payload: buildPayload(values, {}),
      });
      let csv = '';
      const env = {
        DATABASE_URL: databaseUrl,
        BRAND_LOGO: '/nowhere/logo.svg',
        PORT: 'not a port',
      };
      const code = await exportCommand.run(['--format', 'csv'], env, {
        ...quiet,
        out: (text) => (csv += text),
      });
      expect(code).toBe(0);
      expect(csv).toContain(`,${values.name},,${values.phone},`);
    });

    it("shows a repeat with its lead's id in repeat_of, before the campaign and consent columns, and the flags last", async () => {
      const { app, databaseUrl, services } = await buildTestApp(backend);
      const post = (name: string) =>
        app.inject({
          method: 'POST',
          url: '/api/external-register',
          payload: buildPayload({ name, email: '', phone: '966512345678' }, {}),
        });
      const { id } = (await post('سارة')).json<{ id: string }>();
      await post('سارة أحمد');
      // Flags as the sign-up's checks store them (docs/flags.md), in any order.
      await services.database.db
        .insertInto('lead_flags')
        .values([
          { registration_id: id, flag: 'burst', other_id: null },
          { registration_id: id, flag: 'contested', other_id: id },
        ])
        .execute();

      let csv = '';
      const env = { DATABASE_URL: databaseUrl };
      const code = await exportCommand.run(['--format', 'csv'], env, {
        ...quiet,
        out: (text) => (csv += text),
      });
      expect(code).toBe(0);
      const lines = csv.slice(1).split('\r\n');
      expect(
        lines[0]?.endsWith(
          ',source,repeat_of,utm_source,utm_medium,utm_campaign,utm_term,utm_content' +
            ',privacy_url,privacy_version,channel,status,status_changed_at,privacy_attested,flags',
        ),
      ).toBe(true);
      // No PRIVACY_URL: the notice is empty; both came by the API. A lead is new until its
      // status changes; a repeat's status is its lead's, so empty.
      // Neither named a notice it was shown: not attested. The lead's flags by name, in their
      // order, never the other lead a flag names; the repeat has none.
      expect(lines[1]).toMatch(
        new RegExp(`^${id},.*,سارة,.*,,,,,,,,,api,new,,false,contested burst$`),
      );
      expect(lines[2]).toMatch(new RegExp(`,سارة أحمد,.*,${id},,,,,,,,api,,,false,$`));
    });

    it('records the notice each submission was shown and its channel: the API’s and the form’s', async () => {
      const notice = {
        PRIVACY_URL: 'https://provider.example/privacy',
        PRIVACY_VERSION: '2026-11',
      };
      const { app, databaseUrl, rows } = await buildTestApp(backend, notice);
      const api = await app.inject({
        method: 'POST',
        url: '/api/external-register',
        payload: buildPayload({ name: 'سارة', email: '', phone: '966500000001' }, {}),
      });
      expect(api.statusCode).toBe(201);
      // The form as the browser posts it without JavaScript, from the site's own page.
      const form = await app.inject({
        method: 'POST',
        url: '/register/register-client',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'http://localhost:80',
        },
        payload: new URLSearchParams({ name: 'نورة', email: '', phone: '966500000002' }).toString(),
      });
      expect(form.statusCode).toBe(303);
      const consent = (channel: string) => ({
        privacy_url: notice.PRIVACY_URL,
        privacy_version: notice.PRIVACY_VERSION,
        channel,
      });
      const byPhone = (records: { phone: string }[]) =>
        [...records].sort((a, b) => a.phone.localeCompare(b.phone));
      expect(byPhone(await rows())).toMatchObject([
        { phone: '966500000001', ...consent('api') },
        { phone: '966500000002', ...consent('form') },
      ]);

      const env = { DATABASE_URL: databaseUrl };
      let jsonl = '';
      await exportCommand.run(['--format', 'jsonl'], env, {
        ...quiet,
        out: (text) => (jsonl += text),
      });
      const records = jsonl
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { phone: string });
      expect(byPhone(records)).toMatchObject([
        { phone: '966500000001', ...consent('api') },
        { phone: '966500000002', ...consent('form') },
      ]);
      let csv = '';
      await exportCommand.run(['--format', 'csv'], env, { ...quiet, out: (text) => (csv += text) });
      const lines = csv.slice(1).trimEnd().split('\r\n');
      expect(
        lines[0]?.endsWith(
          ',privacy_url,privacy_version,channel,status,status_changed_at,privacy_attested,flags',
        ),
      ).toBe(true);
      expect(lines.find((line) => line.includes(',966500000001,'))).toMatch(
        /,https:\/\/provider\.example\/privacy,2026-11,api,new,,false,$/,
      );
      expect(lines.find((line) => line.includes(',966500000002,'))).toMatch(
        /,https:\/\/provider\.example\/privacy,2026-11,form,new,,false,$/,
      );
    });

    it('never migrates: refuses a database whose schema is behind, and leaves it so', async () => {
      const { databaseUrl } = await buildTestApp(backend);
      const { database: config } = loadConfig({ DATABASE_URL: databaseUrl });
      const database = await openDatabase(config);
      const { rows } = await sql<{
        name: string;
      }>`select name from kysely_migration order by name desc limit 1`.execute(database.db);
      const latest = rows[0]?.name;
      await sql`delete from kysely_migration where name = ${latest}`.execute(database.db);

      let message = '';
      const code = await exportCommand.run(
        ['--format', 'csv'],
        { DATABASE_URL: databaseUrl },
        {
          ...quiet,
          err: (text) => (message += text),
        },
      );
      expect(code).toBe(1);
      expect(message).toContain(`schema is behind this program (missing ${latest})`);
      expect(await pendingMigrations(database)).toEqual([latest]);
      await database.close();
    });

    it('prints what the server stored, in both formats, from the same DATABASE_URL', async () => {
      const { app, databaseUrl } = await buildTestApp(backend);
      const values = { name: 'سارة', email: '', phone: '966512345678' };
      await app.inject({
        method: 'POST',
        url: '/api/external-register',
        payload: buildPayload(
          values,
          { packageName: 'classic_reco' },
          { utm_source: 'snapchat', utm_campaign: 'رمضان' },
        ),
      });
      const env = { ...process.env, DATABASE_URL: databaseUrl };

      const jsonl = await run(tsx, ['src/server/cli/tasjeel.ts', 'export', '--format', 'jsonl'], {
        env,
      });
      expect(JSON.parse(jsonl.stdout)).toMatchObject({
        name: values.name,
        email: null,
        notes: buildNotes({ packageName: 'classic_reco' }),
        package_key: 'classic_reco',
        source: 'general_link',
        utm_source: 'snapchat',
        utm_medium: null,
        utm_campaign: 'رمضان',
        utm_term: null,
        utm_content: null,
      });

      const csv = await run(
        tsx,
        ['src/server/cli/tasjeel.ts', 'export', '--format', 'csv', '--since', '2000-01-01'],
        { env },
      );
      expect(csv.stdout.startsWith(`\uFEFF${exportFields.join(',')}\r\n`)).toBe(true);
      expect(csv.stdout).toContain(`,${values.name},,${values.phone},`);
      expect(csv.stdout).toContain(',snapchat,,رمضان,,,,,api,new,,false,\r\n');

      const bad = await run(tsx, ['src/server/cli/tasjeel.ts', 'export', '--format', 'pdf'], {
        env,
      }).catch((error: { code: number; stderr: string }) => error);
      expect(bad).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--format must be csv or jsonl'),
      });
    }, 30_000);
  });
});
