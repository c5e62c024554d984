import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { LeadStatus } from '../../domain/lead-status';
import { buildPayload, registrationSchema } from '../../domain/registration';
import {
  campaignReportNotes,
  conversionRate,
  formatCampaignReport,
  formatReport,
  reportCommand,
  reportNotes,
  sortCampaigns,
  sortLinks,
  type ReportRow,
} from './report';
import { buildTestApp, describeOnBackends } from '../../../testing/server-test-helpers';

const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const run = promisify(execFile);

const unflagged = { flagged: 0, not_credited: 0, awaiting_review: 0 };
const none = { contacted: 0, qualified: 0, clients: 0, lost: 0, ...unflagged };
const outcomes = {
  seven: { ...none, clients: 1 },
  premium: { contacted: 1, qualified: 0, clients: 1, lost: 1, ...unflagged },
  general: { contacted: 2, qualified: 1, clients: 2, lost: 0, ...unflagged },
};
const rows: ReportRow[] = [
  {
    marketing_id: '7',
    package_key: null,
    visits: 12,
    unique_visitors: 9,
    leads: 1,
    repeats: 0,
    ...outcomes.seven,
  },
  {
    marketing_id: '42',
    package_key: 'premium_reco',
    visits: 31,
    unique_visitors: 24,
    leads: 3,
    repeats: 2,
    ...outcomes.premium,
  },
  {
    marketing_id: '42',
    package_key: 'classic_reco',
    visits: 0,
    unique_visitors: 0,
    leads: 1,
    repeats: 0,
    ...none,
  },
  {
    marketing_id: null,
    package_key: null,
    visits: 120,
    unique_visitors: 95,
    leads: 6,
    repeats: 1,
    ...outcomes.general,
  },
];

describe('conversionRate', () => {
  it('is leads per hundred unique visitors, one decimal, or a dash with no visitor', () => {
    expect(conversionRate(3, 24)).toBe('12.5%');
    expect(conversionRate(1, 3)).toBe('33.3%');
    expect(conversionRate(0, 5)).toBe('0.0%');
    expect(conversionRate(2, 0)).toBe('—');
  });
});

describe('sortLinks', () => {
  it('puts marketers by id, numbers in numeric order, packages in the catalogue order, general last', () => {
    expect(sortLinks([rows[3]!, rows[1]!, rows[2]!, rows[0]!])).toEqual([
      rows[0],
      rows[2],
      rows[1],
      rows[3],
    ]);
  });
});

describe('formatReport', () => {
  it('writes an aligned table with a total and what the numbers mean', () => {
    const text = formatReport(rows, 'table');
    expect(text).toBe(
      [
        'Visits and sign-ups per link, all time',
        '',
        'Marketer   Package       Visits  Unique visitors  Leads  Repeats  Conversion  Contacted  Qualified  Clients  Lost  Client rate  Flagged  Not credited',
        '7          (free trial)      12                9      1        0       11.1%          0          0        1     0       100.0%        0             0',
        '42         premium_reco      31               24      3        2       12.5%          1          0        1     1        33.3%        0             0',
        '42         classic_reco       0                0      1        0           —          0          0        0     0         0.0%        0             0',
        '(general)  (free trial)     120               95      6        1        6.3%          2          1        2     0        33.3%        0             0',
        '-----------------------------------------------------------------------------------------------------------------------------------------------------',
        'Total                       163              128     11        3        8.6%          3          1        4     1        36.4%        0             0',
        '',
        ...reportNotes,
        '',
      ].join('\n'),
    );
  });

  it('shows stored control, bidi and line-separator characters as escapes, never raw', () => {
    const forged = {
      marketing_id: '\u001b[2J\u001b[31m\r\nTotal 9999',
      package_key: '\u202Eabc\u2028',
      visits: 1,
      unique_visitors: 1,
      leads: 0,
      repeats: 0,
      ...none,
    };
    const text = formatReport([forged], 'table');
    for (const raw of ['\u001b', '\r', '\u202E', '\u2028']) expect(text).not.toContain(raw);
    expect(text).toContain('\\u{1B}[2J\\u{1B}[31m\\u{D}\\u{A}Total 9999');
    expect(text).toContain('\\u{202E}abc\\u{2028}');
    expect(text.split('\n').filter((line) => line.startsWith('Total'))).toHaveLength(1);
  });

  it('names the period when there is one', () => {
    const text = formatReport([], 'table', new Date('2025-03-01'));
    expect(text.split('\n')[0]).toBe(
      'Visits and sign-ups per link, since 2025-03-01T00:00:00.000Z',
    );
    expect(text).toMatch(/^Total +0 +0 +0 +0 +— +0 +0 +0 +0 +— +0 +0$/m);
  });

  it('writes CSV: one row per link, no total, empty for none, formulas disarmed', () => {
    const csv = formatReport([...rows, { ...rows[0]!, marketing_id: '=1+1' }], 'csv');
    expect(csv).toBe(
      '\uFEFF' +
        [
          'marketing_id,package_key,visits,unique_visitors,leads,repeats,conversion_percent,contacted,qualified,clients,lost,client_percent,flagged,not_credited',
          '7,,12,9,1,0,11.1,0,0,1,0,100.0,0,0',
          '42,premium_reco,31,24,3,2,12.5,1,0,1,1,33.3,0,0',
          '42,classic_reco,0,0,1,0,,0,0,0,0,0.0,0,0',
          ',,120,95,6,1,6.3,2,1,2,0,33.3,0,0',
          "'=1+1,,12,9,1,0,11.1,0,0,1,0,100.0,0,0",
          '',
        ].join('\r\n'),
    );
  });
});

describe('the report command', () => {
  it.each([[['--format', 'pdf']], [['--since', 'last week']], [['--unknown']], [['extra']]])(
    'refuses %j with exit code 2 and the usage',
    async (argv) => {
      let message = '';
      const code = await reportCommand.run(
        argv,
        {},
        { out: () => {}, err: (text) => (message += text) },
      );
      expect(code).toBe(2);
      expect(message).toContain('usage: npm run report');
    },
  );
});

describeOnBackends('on $name', (backend) => {
  describe('npm run report', () => {
    it('reports the visits, leads and repeats of a known database, in both formats', async () => {
      const clock = { now: new Date('2025-03-01T10:00:00Z') };
      const { app, services, databaseUrl } = await buildTestApp(
        backend,
        {},
        { now: () => clock.now },
      );
      const agent = 'Mozilla/5.0 (Linux; Android 14) Chrome/126.0 Mobile';
      const visit = (url: string, remoteAddress: string) =>
        app.inject({ url, remoteAddress, headers: { 'user-agent': agent } });
      const signUp = (phone: string, route: { packageName?: string; marketingId?: string }) =>
        services.registrations.register(
          registrationSchema.parse(buildPayload({ name: 'سارة', email: '', phone }, route)),
          clock.now,
          'api',
        );

      // On 1 March, before --since: marketer 42's package link, seen once and signed up.
      await visit('/register/register-client/premium_reco/42', '198.51.100.1');
      await signUp('966500000001', { packageName: 'premium_reco', marketingId: '42' });
      clock.now = new Date('2025-03-02T09:00:00Z');
      // On 2 March: the same link, four visitors (one reloads: counted once), two sign-ups and
      // a repeat of one of them (sent again from marketer 7's id: credited to 42); a general form.
      for (const address of ['198.51.100.1', '198.51.100.1', '198.51.100.2', '198.51.100.3']) {
        await visit('/register/register-client/premium_reco/42', address);
      }
      await visit('/register/register-client/premium_reco/42', '198.51.100.4');
      await signUp('966500000002', { packageName: 'premium_reco', marketingId: '42' });
      await signUp('966500000003', { packageName: 'premium_reco', marketingId: '42' });
      await services.registrations.register(
        {
          ...registrationSchema.parse(
            buildPayload(
              { name: 'سارة', email: '', phone: '966500000003' },
              { packageName: 'premium_reco', marketingId: '42' },
            ),
          ),
          marketing_id: '7',
        },
        clock.now,
        'api',
      );
      await visit('/register/register-client', '198.51.100.9');
      // Marketer 7's free-trial link brought a sign-up but no counted visit.
      await signUp('966500000004', { marketingId: '7' });
      // What the CRM said of them later: counted on the day each lead signed up.
      clock.now = new Date('2025-03-20T09:00:00Z');
      const change = (phone: string, status: LeadStatus) =>
        services.leadStatuses.change({ phone }, status, 'api', clock.now);
      await change('966500000001', 'client');
      await change('966500000002', 'client');
      await change('966500000003', 'lost');
      await change('966500000004', 'contacted');
      await app.close();

      let table = '';
      const env = { DATABASE_URL: databaseUrl };
      const code = await reportCommand.run(['--since', '2025-03-02'], env, {
        out: (text) => (table += text),
        err: (text) => expect.fail(text),
      });
      expect(code).toBe(0);
      expect(table.split('\n').slice(0, 7)).toEqual([
        'Visits and sign-ups per link, since 2025-03-02T00:00:00.000Z',
        '',
        'Marketer   Package       Visits  Unique visitors  Leads  Repeats  Conversion  Contacted  Qualified  Clients  Lost  Client rate  Flagged  Not credited',
        '7          (free trial)       0                0      1        0           —          1          0        0     0         0.0%        0             0',
        '42         premium_reco       4                4      2        1       50.0%          0          0        1     1        50.0%        0             0',
        '(general)  (free trial)       1                1      0        0        0.0%          0          0        0     0            —        0             0',
        '-----------------------------------------------------------------------------------------------------------------------------------------------------',
      ]);
      expect(table.split('\n')[7]).toBe(
        'Total                         5                5      3        1       60.0%          1          0        1     1        33.3%        0             0',
      );

      const csv = await run(tsx, ['src/server/cli/tasjeel.ts', 'report', '--format', 'csv'], {
        env: { ...process.env, ...env },
      });
      expect(csv.stdout.slice(1).split('\r\n')).toEqual([
        'marketing_id,package_key,visits,unique_visitors,leads,repeats,conversion_percent,contacted,qualified,clients,lost,client_percent,flagged,not_credited',
        '7,,0,0,1,0,,1,0,0,0,0.0,0,0',
        '42,premium_reco,5,5,3,1,60.0,0,0,2,1,66.7,0,0',
        ',,1,1,0,0,0.0,0,0,0,0,,0,0',
        '',
      ]);
    }, 30_000);
  });
});

describe('the report per campaign', () => {
  it('orders sources and campaigns by name, none last', () => {
    const none_ = { ...none, leads: 0, repeats: 0 };
    const qr = { utm_source: 'qr', utm_campaign: null, visits: 4, unique_visitors: 4, ...none_ };
    const snapchat = {
      utm_source: 'snapchat',
      utm_campaign: 'ramadan',
      visits: 30,
      unique_visitors: 20,
      leads: 5,
      repeats: 1,
      ...outcomes.premium,
    };
    const whatsapp = {
      utm_source: 'whatsapp',
      utm_campaign: null,
      visits: 0,
      unique_visitors: 0,
      ...none_,
      leads: 2,
    };
    const noCampaign = {
      utm_source: null,
      utm_campaign: null,
      visits: 50,
      unique_visitors: 40,
      leads: 4,
      repeats: 0,
      ...outcomes.general,
    };
    const report = sortCampaigns([noCampaign, whatsapp, snapchat, qr]);
    expect(report).toEqual([qr, snapchat, whatsapp, noCampaign]);
    expect(formatCampaignReport(report, 'table').split('\n').slice(0, 9)).toEqual([
      'Visits and sign-ups per campaign, all time',
      '',
      'Source    Campaign  Visits  Unique visitors  Leads  Repeats  Conversion  Contacted  Qualified  Clients  Lost  Client rate  Flagged  Not credited',
      'qr        (none)         4                4      0        0        0.0%          0          0        0     0            —        0             0',
      'snapchat  ramadan       30               20      5        1       25.0%          1          0        1     1        20.0%        0             0',
      'whatsapp  (none)         0                0      2        0           —          0          0        0     0         0.0%        0             0',
      '(none)    (none)        50               40      4        0       10.0%          2          1        2     0        50.0%        0             0',
      '------------------------------------------------------------------------------------------------------------------------------------------------',
      'Total                   84               64     11        1       17.2%          3          1        3     1        27.3%        0             0',
    ]);
    expect(formatCampaignReport(report, 'table')).toContain(campaignReportNotes[0]);
    expect(formatCampaignReport([{ ...report[0]!, utm_campaign: '=1+1' }], 'csv')).toBe(
      '\uFEFF' +
        [
          'utm_source,utm_campaign,visits,unique_visitors,leads,repeats,conversion_percent,contacted,qualified,clients,lost,client_percent,flagged,not_credited',
          "qr,'=1+1,4,4,0,0,0.0,0,0,0,0,,0,0",
          '',
        ].join('\r\n'),
    );
  });

  it('refuses --by anything but link or campaign', async () => {
    let message = '';
    const code = await reportCommand.run(
      ['--by', 'marketer'],
      {},
      {
        out: () => {},
        err: (text) => (message += text),
      },
    );
    expect(code).toBe(2);
    expect(message).toContain('--by must be link or campaign');
  });
});

describeOnBackends('on $name', (backend) => {
  it('npm run report -- --by campaign counts the visits and sign-ups made through the pages', async () => {
    const clock = { now: new Date('2025-03-01T10:00:00Z') };
    const { app, databaseUrl } = await buildTestApp(backend, {}, { now: () => clock.now });
    const agent = 'Mozilla/5.0 (Linux; Android 14) Chrome/126.0 Mobile';
    const page = '/register/register-client/premium_reco/42';
    const visit = (query: string, remoteAddress: string) =>
      app.inject({ url: `${page}${query}`, remoteAddress, headers: { 'user-agent': agent } });
    const signUp = (phone: string, query: string) =>
      app.inject({
        method: 'POST',
        url: `${page}${query}`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'http://localhost:80',
        },
        payload: new URLSearchParams({ name: 'سارة', email: '', phone }).toString(),
      });
    const snapchat = '?utm_source=snapchat&utm_medium=cpc&utm_campaign=ramadan';

    // Three visitors from the Snapchat ad (one cut to 100 characters by the same rule as its
    // sign-up would be), one from WhatsApp, one untagged; a bad utm_source is no campaign.
    await visit(snapchat, '198.51.100.1');
    await visit(snapchat, '198.51.100.2');
    await visit(`?utm_source=+snapchat+&utm_campaign=ramadan`, '198.51.100.3');
    await visit('?utm_source=whatsapp&utm_medium=referral', '198.51.100.4');
    await visit('', '198.51.100.5');
    await visit('?utm_source=snap%07chat', '198.51.100.6');
    // A visitor's first view of the day is its campaign: the later untagged view adds nothing.
    await visit('', '198.51.100.1');
    expect((await signUp('966500000001', snapchat)).statusCode).toBe(303);
    expect((await signUp('966500000001', snapchat)).statusCode).toBe(303);
    expect((await signUp('966500000002', '?utm_source=whatsapp')).statusCode).toBe(303);
    await app.close();

    let table = '';
    const code = await reportCommand.run(
      ['--by', 'campaign'],
      { DATABASE_URL: databaseUrl },
      {
        out: (text) => (table += text),
        err: (text) => expect.fail(text),
      },
    );
    expect(code).toBe(0);
    expect(table.split('\n').slice(0, 8)).toEqual([
      'Visits and sign-ups per campaign, all time',
      '',
      'Source    Campaign  Visits  Unique visitors  Leads  Repeats  Conversion  Contacted  Qualified  Clients  Lost  Client rate  Flagged  Not credited',
      'snapchat  ramadan        3                3      1        1       33.3%          0          0        0     0         0.0%        0             0',
      'whatsapp  (none)         1                1      1        0      100.0%          0          0        0     0         0.0%        0             0',
      '(none)    (none)         2                2      0        0        0.0%          0          0        0     0            —        0             0',
      '------------------------------------------------------------------------------------------------------------------------------------------------',
      'Total                    6                6      2        1       33.3%          0          0        0     0         0.0%        0             0',
    ]);

    // The report per link is the same as ever: one link, all its visits and sign-ups.
    let byLink = '';
    await reportCommand.run(
      ['--format', 'csv'],
      { DATABASE_URL: databaseUrl },
      {
        out: (text) => (byLink += text),
        err: (text) => expect.fail(text),
      },
    );
    expect(byLink.slice(1).split('\r\n')[1]).toBe('42,premium_reco,6,6,2,1,33.3,0,0,0,0,0.0,0,0');
  }, 30_000);
});
