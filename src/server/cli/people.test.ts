import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Person } from '../../domain/people';
import { buildPayload, registrationSchema } from '../../domain/registration';
import {
  buildTestApp,
  describeOnBackends,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { openDatabase } from '../db/database';
import { loadConfig } from '../env';
import { createPeople } from '../people/people';
import type { Terminal } from './command';
import { peopleCommand } from './people';
import { personCommand, postgresErasureNote } from './person';

// Issue 48: the programme's people from a spreadsheet, and what is kept about a marketer.

/** A migrated database, the app closed; `sara` (1042) put, with a lead on her link. */
async function stored(backend: TestBackend) {
  const test = await buildTestApp(backend);
  await test.services.people.put(
    [
      {
        marketing_id: '1042',
        name: 'سارة القحطاني',
        team_leader_id: '1007',
        email: 'sara@example.com',
        active: true,
      },
    ],
    new Date('2026-11-20T09:00:00.000Z'),
  );
  await test.services.registrations.register(
    registrationSchema.parse(
      buildPayload(
        { name: 'نورة', email: '', phone: '966500000001' },
        { packageName: 'premium_reco', marketingId: '1042' },
      ),
    ),
    new Date('2026-11-20T10:00:00.000Z'),
    'api',
  );
  await test.app.close();
  return test;
}

async function run(
  command: typeof peopleCommand,
  databaseUrl: string,
  argv: string[],
  confirm?: Terminal['confirm'],
) {
  let out = '';
  let err = '';
  const code = await command.run(
    argv,
    { DATABASE_URL: databaseUrl },
    { out: (text) => (out += text), err: (text) => (err += text), confirm },
  );
  return { code, out, err };
}

/** What the directory keeps, read through a connection of its own. */
async function kept(databaseUrl: string, ...ids: string[]) {
  const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
  try {
    const people = createPeople(database);
    return Object.fromEntries(
      await Promise.all(ids.map(async (id) => [id, (await people.get(id)) ?? null] as const)),
    );
  } finally {
    await database.close();
  }
}

describeOnBackends('npm run tasjeel -- people import on $name', (backend) => {
  it('imports a file as Excel saves it: a BOM, CRLF, Arabic names, active as TRUE, False, 1, 0 or empty', async () => {
    const test = await stored(backend);
    const file = join(test.dir, 'people.csv');
    await writeFile(
      file,
      '\uFEFF' +
        [
          'Marketing_ID,Name,Team_Leader_ID,Email,Active',
          '1042,سارة القحطاني,1007,sara@example.com,FALSE',
          '1043,"نورة، الفريق الأول",9999,,1',
          '1044, ريم ,,reem@example.com,True',
          '1045,هند,1043,,0',
          '1046,لمى,1043,,',
          ',,,,',
          '',
        ].join('\r\n'),
    );
    const { code, out, err } = await run(peopleCommand, test.databaseUrl, ['import', file]);
    expect(err).toBe('');
    expect(out).toBe('5 put, 0 refused\n');
    expect(code).toBe(0);
    const people = await kept(test.databaseUrl, '1042', '1043', '1044', '1045', '1046');
    const brief = Object.fromEntries(
      Object.entries(people).map(([id, person]) => [
        id,
        person && [person.name, person.team_leader_id, person.email, person.active],
      ]),
    );
    expect(brief).toEqual({
      '1042': ['سارة القحطاني', '1007', 'sara@example.com', false],
      '1043': ['نورة، الفريق الأول', '9999', null, true],
      '1044': ['ريم', null, 'reem@example.com', true],
      '1045': ['هند', '1043', null, false],
      '1046': ['لمى', '1043', null, true],
    });
    expect(people['1042']?.inactive_since).not.toBeNull();
  });

  it('reads a file without a BOM, with semicolons, its columns in any order and others ignored', async () => {
    const test = await stored(backend);
    const file = join(test.dir, 'people.csv');
    await writeFile(
      file,
      ['ملاحظات;name;marketing_id;active', 'جديد;هند;1050;false', ';لمى;1051;'].join('\n'),
    );
    const { code, out } = await run(peopleCommand, test.databaseUrl, ['import', file]);
    expect({ code, out }).toEqual({ code: 0, out: '2 put, 0 refused\n' });
    expect(await kept(test.databaseUrl, '1050', '1051')).toMatchObject({
      '1050': { name: 'هند', team_leader_id: null, email: null, active: false },
      '1051': { name: 'لمى', active: true },
    });
    // The same file again: nothing changes but when they were put.
    const before = await kept(test.databaseUrl, '1050');
    await run(peopleCommand, test.databaseUrl, ['import', file]);
    const after = await kept(test.databaseUrl, '1050');
    expect({ ...after['1050'], updated_at: '' }).toEqual({ ...before['1050'], updated_at: '' });
  });

  it('puts the good rows, names each refused one by its line and why, and exits 1', async () => {
    const test = await stored(backend);
    const file = join(test.dir, 'people.csv');
    await writeFile(
      file,
      [
        'marketing_id,name,team_leader_id,email,active',
        '1060,سارة,,,true',
        'a b,نورة,,,true',
        '1061,,,,true',
        '1062,ريم,,not-an-email,true',
        '1063,هند,,,yes',
        '1064,لمى,a b,,',
        '1065,"جود",,,0',
      ].join('\n'),
    );
    const { code, out, err } = await run(peopleCommand, test.databaseUrl, ['import', file]);
    expect(code).toBe(1);
    expect(out).toBe('2 put, 5 refused\n');
    expect(err.trimEnd().split('\n')).toEqual([
      'line 3: marketing_id is not a marketing id',
      'line 4: not valid: name',
      'line 5: not valid: email',
      'line 6: active is "yes": expected true, false, 1 or 0',
      'line 7: not valid: team_leader_id',
    ]);
    const people = await kept(test.databaseUrl, '1060', '1061', '1065');
    expect(Object.values(people).map((person) => person?.name ?? null)).toEqual([
      'سارة',
      null,
      'جود',
    ]);
  });

  it('changes nothing with a file that is not CSV, or whose header names no marketing_id and name', async () => {
    const test = await stored(backend);
    for (const [name, content] of [
      ['people.xlsx', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0x06, 0, 0, 0, 0x21, 0])],
      ['no-header.csv', '1070,سارة\n'],
      ['no-name.csv', 'marketing_id,email\n1070,a@example.com\n'],
      ['empty.csv', ''],
      ['open-quote.csv', 'marketing_id,name\n1070,"سارة\n'],
    ] as const) {
      const file = join(test.dir, name);
      await writeFile(file, content);
      const { code, err } = await run(peopleCommand, test.databaseUrl, ['import', file]);
      expect(code, name).toBe(1);
      expect(err, name).toMatch(/^Nothing changed: /);
    }
    expect(await kept(test.databaseUrl, '1070')).toEqual({ '1070': null });
  });
});

// A marketer who never asked for e-mails: none of their records (docs/notifications.md).
const noMail = { subscribers: [], confirmations: [], consents: [], emails: [] };
const noneErased = { subscribers: 0, confirmations: 0, consents: 0, emails: 0 };

describeOnBackends('npm run person -- --marketer on $name', (backend) => {
  it('shows what the directory keeps about a marketer, and null for one it does not know', async () => {
    const test = await stored(backend);
    const shown = await run(personCommand, test.databaseUrl, ['--marketer', '1042']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toEqual({
      marketer: '1042',
      person: {
        marketing_id: '1042',
        name: 'سارة القحطاني',
        team_leader_id: '1007',
        email: 'sara@example.com',
        active: true,
        inactive_since: null,
        updated_at: '2026-11-20T09:00:00.000Z',
      } satisfies Person,
      mail: noMail,
    });
    const unknown = await run(personCommand, test.databaseUrl, ['--marketer', '1043']);
    expect(JSON.parse(unknown.out)).toEqual({ marketer: '1043', person: null, mail: noMail });
  });

  it('--erase removes the marketer from the directory, their leads staying, and asks first', async () => {
    const test = await stored(backend);
    const no = await run(
      personCommand,
      test.databaseUrl,
      ['--marketer', '1042', '--erase'],
      async () => false,
    );
    expect(no).toMatchObject({ code: 1, err: 'Nothing erased.\n' });
    expect((await kept(test.databaseUrl, '1042'))['1042']).not.toBeNull();

    let asked = '';
    const erased = await run(
      personCommand,
      test.databaseUrl,
      ['--marketer', '1042', '--erase'],
      async (question) => ((asked = question), true),
    );
    expect(asked).toContain('this marketer');
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.out)).toEqual({
      marketer: '1042',
      erased: { people: 1 },
      erased_mail: noneErased,
    });
    expect(erased.err).toBe(backend.database === 'postgres' ? postgresErasureNote : '');
    expect(postgresErasureNote).toMatch(/ people[,;]/);
    expect(postgresErasureNote).toContain(' mail_subscribers,');
    expect(await kept(test.databaseUrl, '1042')).toEqual({ '1042': null });
    // The prospect's lead on the marketer's link is the prospect's data: it stays.
    expect((await test.rows()).map((row) => row.marketing_id)).toEqual(['1042']);

    const again = await run(personCommand, test.databaseUrl, [
      '--marketer',
      '1042',
      '--erase',
      '--yes',
    ]);
    expect(JSON.parse(again.out)).toEqual({
      marketer: '1042',
      erased: { people: 0 },
      erased_mail: noneErased,
    });
    expect(again.err).toBe('');
  });
});

describe('npm run tasjeel -- people and person --marketer, their arguments', () => {
  it.each([
    [[]],
    [['import']],
    [['import', 'a.csv', 'b.csv']],
    [['export', 'a.csv']],
    [['import', 'a.csv', '--yes']],
  ])('people refuses %j with the usage', async (argv) => {
    const { code, err } = await run(peopleCommand, 'sqlite::memory:', argv);
    expect(code).toBe(2);
    expect(err).toContain('usage: npm run people');
  });

  it.each([
    [['--marketer', '1042', '--phone', '966500000001']],
    [['--marketer', 'a b']],
    [['--marketer', '1042', '--yes']],
    [['--marketer', '1042', '--erase']],
  ])('person refuses %j with the usage', async (argv) => {
    const { code, err } = await run(personCommand, 'sqlite::memory:', argv);
    expect(code).toBe(2);
    expect(err).toContain('usage: npm run person');
  });
});
