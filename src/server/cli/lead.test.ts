import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { arLeadStatus } from '../../domain/catalogue/lead-status';
import { buildPayload, registrationSchema } from '../../domain/registration';
import {
  buildTestApp,
  describeOnBackends,
  sqliteBackend,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { newWebhookSecret } from '../../../testing/webhook-receiver';
import { leadCommand } from './lead';
import { loadConfig } from '../env';

// Issue 26: `npm run lead`, for a provider without a CRM that calls the API.

const premium42 = { packageName: 'premium_reco', marketingId: '42' };

/** Stored sign-ups, the app closed; returns the database and where to write files. */
async function stored(backend: TestBackend, phones: string[]) {
  const test = await buildTestApp(backend);
  let at = Date.parse('2026-11-20T09:00:00.000Z');
  for (const phone of phones) {
    await test.services.registrations.register(
      registrationSchema.parse(buildPayload({ name: 'سارة', email: '', phone }, premium42)),
      new Date((at += 60_000)),
      'api',
    );
  }
  await test.app.close();
  return test;
}

async function lead(databaseUrl: string, argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await leadCommand.run(
    argv,
    { DATABASE_URL: databaseUrl, ...env },
    { out: (text) => (out += text), err: (text) => (err += text) },
  );
  return { code, out, err };
}

const statusOf = async (test: Awaited<ReturnType<typeof stored>>) =>
  Object.fromEntries((await test.rows()).map((row) => [row.phone, row.status]));

describeOnBackends('npm run lead on $name', (backend) => {
  it('sets one lead’s status by its id, or by a phone’s most recent lead, key or Arabic label', async () => {
    const test = await stored(backend, ['966500000001', '966500000002']);
    const [first] = await test.rows();
    const byId = await lead(test.databaseUrl, ['status', '--id', first!.id, '--status', 'client']);
    expect(byId.code).toBe(0);
    expect(JSON.parse(byId.out)).toMatchObject({ id: first!.id, status: 'client', changed: true });
    const byPhone = await lead(test.databaseUrl, [
      'status',
      '--phone',
      '٠٥٠٠٠٠٠٠٠٢',
      '--status',
      arLeadStatus.contacted,
    ]);
    expect(byPhone.code).toBe(0);
    expect(await statusOf(test)).toEqual({ '966500000001': 'client', '966500000002': 'contacted' });
    const again = await lead(test.databaseUrl, ['status', '--id', first!.id, '--status', 'client']);
    expect(JSON.parse(again.out)).toMatchObject({ changed: false });

    const unknown = await lead(test.databaseUrl, ['status', '--id', 'nope', '--status', 'lost']);
    expect(unknown).toMatchObject({ code: 1, err: 'No lead with this id.\n' });
  });

  it('imports a file as Excel saves it: a BOM, CRLF, Arabic names and labels, 05 and Arabic-Indic phones', async () => {
    const phones = ['966500000001', '966500000002', '966500000003', '966500000004'];
    const test = await stored(backend, phones);
    const [, second] = await test.rows();
    const file = join(test.dir, 'leads.csv');
    // The second row names its lead by id: a file may have both columns.
    await writeFile(
      file,
      '\uFEFF' +
        [
          'الاسم,Phone,Status,ملاحظات,ID',
          `سارة القحطاني,0500000001,${arLeadStatus.client},"اتصلت، وافقت",`,
          `نورة,,${arLeadStatus.qualified},,${second!.id}`,
          `ريم,+966 50 000 0003,lost,,`,
          `هند,٠٥٠٠٠٠٠٠٠٤, contacted ,,`,
          ',,,,',
          '',
        ].join('\r\n'),
    );
    const { code, out, err } = await lead(test.databaseUrl, ['import', file]);
    expect(err).toBe('');
    expect(out).toBe('4 changed, 0 already so, 0 refused\n');
    expect(code).toBe(0);
    expect(await statusOf(test)).toEqual({
      '966500000001': 'client',
      '966500000002': 'qualified',
      '966500000003': 'lost',
      '966500000004': 'contacted',
    });
  });

  it('applies the good rows, names each refused one by its line and why, and exits 1', async () => {
    const test = await stored(backend, ['966500000001', '966500000002', '966500000003']);
    const file = join(test.dir, 'leads.csv');
    await writeFile(
      file,
      [
        'phone;status',
        '966500000001;client',
        '9.66559E+11;client',
        '966500000002;won',
        '12345;client',
        '966500000009;client',
        ';client',
        '"966500000003";"lost"',
      ].join('\n'),
    );
    const { code, out, err } = await lead(test.databaseUrl, ['import', file]);
    expect(code).toBe(1);
    expect(out, err).toBe('2 changed, 0 already so, 5 refused\n');
    const refused = err.trimEnd().split('\n');
    expect(refused.map((line) => line.split(':')[0])).toEqual([
      'line 3',
      'line 4',
      'line 5',
      'line 6',
      'line 7',
    ]);
    expect(refused[0]).toContain('scientific notation');
    expect(refused[1]).toContain('unknown status "won"');
    expect(refused[2]).toContain('not a number like 9665XXXXXXXX');
    expect(refused[3]).toContain('no lead with this phone');
    expect(refused[4]).toContain('no phone');
    expect(err).not.toContain('966500000009');
    expect(await statusOf(test)).toEqual({
      '966500000001': 'client',
      '966500000002': 'new',
      '966500000003': 'lost',
    });
  });

  it('changes nothing with a file that is not CSV', async () => {
    const test = await stored(backend, ['966500000001']);
    const files: [string, Buffer | string][] = [
      // What Excel's own format looks like: a zip.
      ['leads.xlsx', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0x06, 0, 0, 0, 0x21, 0])],
      // The same text saved in Windows-1256, not UTF-8: "عميل".
      [
        'ansi.csv',
        Buffer.concat([
          Buffer.from('phone,status\n966500000001,'),
          Buffer.from([0xde, 0xe3, 0xed, 0xe1]),
        ]),
      ],
      ['no-header.csv', '966500000001,client\n'],
      ['open-quote.csv', 'phone,status\n966500000001,client\n"966500000001,lost\n'],
    ];
    for (const [name, content] of files) {
      const file = join(test.dir, name);
      await writeFile(file, content);
      const { code, err } = await lead(test.databaseUrl, ['import', file]);
      expect(code, name).toBe(1);
      expect(err, name).toMatch(/^Nothing changed: /);
    }
    expect(await statusOf(test)).toEqual({ '966500000001': 'new' });
  });

  it('queues each change’s event whatever the shell’s WEBHOOK_URL; a server without one fails them', async () => {
    const test = await stored(backend, ['966500000001']);
    const [row] = await test.rows();
    const events = async () =>
      (await test.events()).map((event) => [event.type, event.status, event.last_error]);
    // An operator's shell has no WEBHOOK_URL: the change's event is queued all the same.
    await lead(test.databaseUrl, ['status', '--id', row!.id, '--status', 'contacted']);
    await lead(test.databaseUrl, ['status', '--id', row!.id, '--status', 'client'], {
      WEBHOOK_URL: 'https://crm.example/hooks',
      WEBHOOK_SECRET: newWebhookSecret(),
    });
    expect(await events()).toEqual([
      ['registration.status_changed', 'pending', null],
      ['registration.status_changed', 'pending', null],
    ]);
    // A server without WEBHOOK_URL will never deliver them: it fails them, saying why.
    const server = await buildTestApp(
      backend,
      {},
      {
        config: { database: loadConfig({ DATABASE_URL: test.databaseUrl }).database },
      },
    );
    await server.app.ready();
    await expect.poll(events).toEqual([
      ['registration.status_changed', 'failed', 'WEBHOOK_URL is not set'],
      ['registration.status_changed', 'failed', 'WEBHOOK_URL is not set'],
    ]);
  });
});

describe('npm run lead, its arguments', () => {
  it.each([
    [[]],
    [['status', '--status', 'client']],
    [['status', '--id', 'a', '--phone', '966500000001', '--status', 'client']],
    [['status', '--id', 'a', '--status', 'won']],
    [['status', '--phone', '9.66559E+11', '--status', 'client']],
    [['status', '--id', 'a']],
    [['import']],
    [['import', 'a.csv', 'b.csv']],
    [['import', 'a.csv', '--status', 'client']],
    [['erase', '--id', 'a']],
  ])('refuses %j with the usage', async (argv) => {
    const { code, err } = await lead('sqlite::memory:', argv);
    expect(code).toBe(2);
    expect(err).toContain('usage: npm run lead');
  });
});

describe('npm run lead import, on SQLite', () => {
  it('reads the file as it goes: 100,000 empty rows under the table fit in 48 MB of memory', async () => {
    const test = await stored(sqliteBackend, ['966500000001']);
    const file = join(test.dir, 'leads.csv');
    // Read whole, such a file of 400 kB took more than 60 MB (issue 35). The command under tsx,
    // which compiles each module as it loads, holds near 30 MB of its own: at 32 MB it ran out
    // of memory in 1 run of 4 before a row was read.
    await writeFile(
      file,
      `phone,status,notes\r\n966500000001,client,\r\n${',,\r\n'.repeat(100_000)}`,
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--max-old-space-size=48',
        '--import',
        'tsx',
        'src/server/cli/tasjeel.ts',
        'lead',
        'import',
        file,
      ],
      { env: { ...process.env, DATABASE_URL: test.databaseUrl } },
    );
    expect(stdout).toBe('1 changed, 0 already so, 0 refused\n');
    expect(await statusOf(test)).toEqual({ '966500000001': 'client' });
  }, 60_000);

  it('shows the control and bidi characters of a file and its cells escaped, never as they are', async () => {
    const test = await stored(sqliteBackend, ['966500000001']);
    const file = join(test.dir, 'leads.csv');
    await writeFile(file, 'phone,status\n966500000001,\u202Ewon\u2066\n\u001B[2J,client\n');
    const refused = await lead(test.databaseUrl, ['import', file]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('line 2: unknown status "\\u{202E}won\\u{2066}"');
    expect(refused.err).toContain('line 3: the phone is not a number');
    const missing = await lead(test.databaseUrl, ['import', join(test.dir, 'leads\u202Evsc.csv')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^Nothing changed: .*leads\\u\{202E\}vsc\.csv/);
    for (const { err } of [refused, missing]) {
      for (const raw of ['\u001B', '\u202E', '\u2066']) expect(err).not.toContain(raw);
    }
  });
});
