import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ar } from '../../domain/catalogue/shared';
import { peoplePerPut, type Person } from '../../domain/people';
import {
  buildTestApp,
  describeOnBackends,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { loadConfig } from '../env';
import { peopleBodyLimit, refusedPerMinute, requestsPerMinute } from '../plugins/people';

// Issue 48: the programme's people, from the provider's platform.

const key = randomBytes(24).toString('base64url');
const nextKey = randomBytes(24).toString('base64url');
const sara = { name: 'سارة القحطاني', team_leader_id: '7', email: 'sara@example.com' };

async function start(backend: TestBackend, env: Record<string, string> = {}, databaseUrl?: string) {
  const clock = { now: new Date('2026-11-25T09:00:00.000Z') };
  const test = await buildTestApp(
    backend,
    { PEOPLE_API_KEY: `${key},${nextKey}`, ...env },
    {
      now: () => clock.now,
      ...(databaseUrl && {
        config: { database: loadConfig({ DATABASE_URL: databaseUrl }).database },
      }),
    },
  );
  /** With the platform's key, or the Authorization header given (null: none). */
  const request = (
    method: 'GET' | 'PUT',
    path: string,
    payload?: unknown,
    authorization: string | null = `Bearer ${key}`,
  ) =>
    test.app.inject({
      method,
      url: `/api/people${path}`,
      headers: authorization === null ? {} : { authorization },
      ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
    });
  const put = (id: string, payload: unknown, authorization?: string | null) =>
    request('PUT', `/${encodeURIComponent(id)}`, payload, authorization);
  const putAll = (payload: unknown, authorization?: string | null) =>
    request('PUT', '', payload, authorization);
  const get = (id: string, authorization?: string | null) =>
    request('GET', `/${encodeURIComponent(id)}`, undefined, authorization);
  return { ...test, clock, put, putAll, get };
}

/** `count` people 1000…, each with a team leader of ten, as the platform would send them. */
const peopleOf = (count: number, from = 1_000) =>
  Array.from({ length: count }, (_, n) => ({
    marketing_id: String(from + n),
    name: `مسوق رقم ${from + n}`,
    team_leader_id: String(from + n - (n % 10)),
    email: `m${from + n}@example.com`,
  }));

describeOnBackends('the people API on $name', (backend) => {
  it('puts one person and answers what is kept, as GET does; no-store', async () => {
    const { put, get } = await start(backend);
    const response = await put('1042', sara);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const kept: Person = {
      marketing_id: '1042',
      name: 'سارة القحطاني',
      team_leader_id: '7',
      email: 'sara@example.com',
      active: true,
      inactive_since: null,
      updated_at: '2026-11-25T09:00:00.000Z',
    };
    expect(response.json()).toEqual(kept);
    const read = await get('1042');
    expect(read.statusCode).toBe(200);
    expect(read.headers['cache-control']).toBe('no-store');
    expect(read.json()).toEqual(kept);
  });

  it('is idempotent: the same put twice keeps one person as once; a put replaces the whole person', async () => {
    const { put, get, clock } = await start(backend);
    await put('1042', sara);
    clock.now = new Date('2026-11-25T10:00:00.000Z');
    const again = await put('1042', sara);
    expect(again.json()).toMatchObject({ ...sara, updated_at: '2026-11-25T10:00:00.000Z' });
    // Left out, or sent as null or '': unset.
    for (const payload of [
      { name: 'سارة' },
      { name: 'سارة', team_leader_id: null, email: null },
      { name: ' سارة ', team_leader_id: '', email: '' },
    ]) {
      expect((await put('1042', payload)).statusCode).toBe(200);
      expect((await get('1042')).json()).toMatchObject({
        name: 'سارة',
        team_leader_id: null,
        email: null,
        active: true,
      });
    }
  });

  it('takes a team leader the directory does not know, and ids as whole numbers', async () => {
    const { putAll, get } = await start(backend);
    const response = await putAll([
      { marketing_id: 1043, name: 'نورة', team_leader_id: 9999 },
      { marketing_id: '1044', name: 'ريم', team_leader_id: '1043' },
    ]);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ stored: 2 });
    expect((await get('1043')).json()).toMatchObject({ name: 'نورة', team_leader_id: '9999' });
    expect((await get('9999')).statusCode).toBe(404);
    expect((await get('1044')).json()).toMatchObject({ team_leader_id: '1043' });
  });

  it('keeps when a person became inactive, through the syncs that say so again, until active', async () => {
    const { put, get, clock } = await start(backend);
    await put('1042', sara);
    clock.now = new Date('2026-11-26T09:00:00.000Z');
    await put('1042', { ...sara, active: false });
    clock.now = new Date('2026-11-27T09:00:00.000Z');
    await put('1042', { ...sara, active: false });
    expect((await get('1042')).json()).toMatchObject({
      active: false,
      inactive_since: '2026-11-26T09:00:00.000Z',
      updated_at: '2026-11-27T09:00:00.000Z',
    });
    await put('1042', sara);
    expect((await get('1042')).json()).toMatchObject({ active: true, inactive_since: null });
    // Inactive from its first put.
    await put('1050', { name: 'هند', active: false });
    expect((await get('1050')).json()).toMatchObject({
      active: false,
      inactive_since: '2026-11-27T09:00:00.000Z',
    });
  });

  it(`puts ${peoplePerPut} people in one request, the last of an id sent twice counting; refuses one more`, async () => {
    const { putAll, get } = await start(backend);
    const people = peopleOf(peoplePerPut);
    people[999] = { ...people[0]!, name: 'الاسم الأخير' };
    const response = await putAll(people);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ stored: peoplePerPut - 1 });
    expect((await get('1000')).json()).toMatchObject({ name: 'الاسم الأخير' });
    expect((await get('1998')).json()).toMatchObject({
      name: 'مسوق رقم 1998',
      team_leader_id: '1990',
      email: 'm1998@example.com',
    });

    const tooMany = await putAll(peopleOf(peoplePerPut + 1, 5_000));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ fields: ['/'] });
    expect((await get('5000')).statusCode).toBe(404);
  });

  it(`takes ${peopleBodyLimit / 1024} KB on PUT /api/people, and refuses a larger body with 413`, async () => {
    const { putAll, put, get } = await start(backend);
    // A thousand people with long names and e-mails: under the limit, then over it.
    const long = (local: number) =>
      peopleOf(peoplePerPut).map((person) => ({
        ...person,
        name: person.name.padEnd(100, 'ا'),
        email: `${'a'.repeat(local)}@example.com`,
      }));
    const under = long(200);
    expect(Buffer.byteLength(JSON.stringify(under))).toBeGreaterThan(peopleBodyLimit - 64 * 1024);
    expect(Buffer.byteLength(JSON.stringify(under))).toBeLessThan(peopleBodyLimit);
    expect((await putAll(under)).statusCode).toBe(200);
    // Ids of 64 characters, the longest there are.
    const over = long(240).map((person) => ({
      ...person,
      marketing_id: person.marketing_id.padStart(64, 'x'),
    }));
    expect(Buffer.byteLength(JSON.stringify(over))).toBeGreaterThan(peopleBodyLimit);
    const refused = await putAll(over);
    expect(refused.statusCode).toBe(413);
    expect(refused.json()).toEqual({ error: ar.errorBadRequest });
    expect((await get('1000'.padStart(64, 'x'))).statusCode).toBe(404);
    // One person's route keeps the API's 16 KB.
    const large = await put('1042', { name: 'سارة', email: `${'a'.repeat(17_000)}@example.com` });
    expect(large.statusCode).toBe(413);
  });

  it('refuses a missing or wrong key with 401, takes either of two keys, and logs no key nor person', async () => {
    const { put, putAll, get, log } = await start(backend);
    for (const authorization of [
      null,
      'Bearer wrong',
      `Bearer ${key}x`,
      `Basic ${key}`,
      key,
      `Bearer ${key},${nextKey}`,
    ]) {
      for (const response of [
        await put('1042', sara, authorization),
        await putAll([{ marketing_id: '1042', ...sara }], authorization),
        await get('1042', authorization),
      ]) {
        expect(response.statusCode, String(authorization)).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Bearer');
        expect(response.json()).toEqual({ error: 'unauthorized' });
      }
    }
    expect((await get('1042')).statusCode).toBe(404);
    expect((await put('1042', sara, `Bearer ${nextKey}`)).statusCode).toBe(200);
    expect((await get('1042')).statusCode).toBe(200);
    expect(log()).not.toContain(key);
    expect(log()).not.toMatch(new RegExp(`${sara.name}|${sara.email}`));
  });

  it('answers 400 naming the fields that are wrong, and stores nothing of a refused body', async () => {
    const { app, put, putAll, get } = await start(backend);
    for (const [payload, fields] of [
      [{}, ['/name']],
      [{ name: '' }, ['/name']],
      [{ name: '\u200B' }, ['/name']],
      [{ name: 'سارة\u0000' }, ['/name']],
      [{ name: 'س'.repeat(101) }, ['/name']],
      [{ name: 'سارة', email: 'not an e-mail' }, ['/email']],
      [{ name: 'سارة', team_leader_id: 'a b' }, ['/team_leader_id']],
      [{ name: 'سارة', team_leader_id: -1 }, ['/team_leader_id']],
      [{ name: 'سارة', active: 'false' }, ['/active']],
      [{ name: 'سارة', phone: '966500000001' }, ['/phone']],
      [[{ name: 'سارة' }], ['/']],
    ] as const) {
      const response = await put('1042', payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toEqual({ error: expect.any(String), fields });
    }
    const path = await put('a b', sara);
    expect(path.statusCode).toBe(400);
    expect(path.json()).toMatchObject({ fields: ['/marketing_id'] });

    const many = await putAll([
      { marketing_id: '1', name: 'سارة' },
      { marketing_id: '2', name: 'نورة', email: 'nope' },
      { name: 'ريم' },
      { marketing_id: '4', name: 'هند', nickname: 'هنوده' },
    ]);
    expect(many.statusCode).toBe(400);
    expect(many.json()).toEqual({
      error: expect.stringContaining('up to 1000 people'),
      fields: ['/1/email', '/2/marketing_id', '/3/nickname'],
    });
    const one = await putAll({ marketing_id: '1', name: 'سارة' });
    expect(one.statusCode).toBe(400);
    expect(one.json()).toMatchObject({ fields: ['/'] });
    const notJson = await app.inject({
      method: 'PUT',
      url: '/api/people/1042',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"name": "سارة"',
    });
    expect(notJson.statusCode).toBe(400);
    expect((await get('1')).statusCode).toBe(404);
    expect((await get('1042')).statusCode).toBe(404);
  });

  it('answers 404 to a person the directory does not know, or an id not shaped as one', async () => {
    const { get, log } = await start(backend);
    for (const id of ['1042', 'a b', '\u0000', 'x'.repeat(65)]) {
      const response = await get(id);
      expect(response.statusCode, JSON.stringify(id)).toBe(404);
      expect(response.json()).toEqual({ error: 'no person with this marketing id' });
    }
    expect(log()).not.toMatch(/"level":50/);
  });

  it('shows a put at once on every instance: each answer reads the database', async () => {
    const first = await start(backend);
    const second = await start(backend, {}, first.databaseUrl);
    await first.put('1042', sara);
    expect((await second.get('1042')).json()).toMatchObject({ name: sara.name });
    await second.put('1042', { ...sara, name: 'سارة ع' });
    expect((await first.get('1042')).json()).toMatchObject({ name: 'سارة ع' });
  });

  it('does not exist without PEOPLE_API_KEY', async () => {
    const test = await buildTestApp(backend);
    for (const [method, url] of [
      ['PUT', '/api/people/1042'],
      ['PUT', '/api/people'],
      ['GET', '/api/people/1042'],
    ] as const) {
      const response = await test.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${key}` },
        ...(method === 'PUT' && { payload: sara }),
      });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
  });

  it('answers no CORS, even to an origin the sign-up API allows', async () => {
    const origin = 'https://www.example.com';
    const { app } = await start(backend, { CORS_ORIGINS: origin });
    for (const url of ['/api/people', '/api/people/1042']) {
      const preflight = await app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    }
    const put = await app.inject({
      method: 'PUT',
      url: '/api/people/1042',
      headers: { origin, authorization: `Bearer ${key}` },
      payload: sara,
    });
    expect(put.statusCode).toBe(200);
    expect(put.headers['access-control-allow-origin']).toBeUndefined();
  });

  it(`limits a key to ${requestsPerMinute} requests a minute a route, and refused keys per address`, async () => {
    const { app, get, put } = await start(backend);
    await put('1042', sara);
    const answered = await get('1042');
    expect(answered.headers['x-ratelimit-limit']).toBe(String(requestsPerMinute));
    expect(answered.headers['x-ratelimit-remaining']).toBe(String(requestsPerMinute - 1));
    for (let n = 0; n < refusedPerMinute; n += 1) {
      expect((await get('1042', 'Bearer guess')).statusCode).toBe(401);
    }
    const limited = await get('1042', 'Bearer guess');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.json()).toEqual({ error: ar.errorTooManyRequests });
    const elsewhere = await app.inject({
      method: 'GET',
      url: '/api/people/1042',
      remoteAddress: '198.51.100.9',
      headers: { authorization: 'Bearer guess' },
    });
    expect(elsewhere.statusCode).toBe(401);
    // The platform's own key still passes from the address that guessed.
    expect((await get('1042')).statusCode).toBe(200);
    for (let n = 2; n < requestsPerMinute; n += 1) await get('1042');
    const past = await get('1042');
    expect(past.statusCode).toBe(429);
    expect(past.json()).toEqual({ error: ar.errorTooManyRequests });
    // Another route's count is its own.
    expect((await put('1042', sara)).statusCode).toBe(200);
  });
});

describeOnBackends('RETENTION_DAYS, for the people, on $name', (backend) => {
  it('erases the name and e-mail of a person inactive that long; their id, team and dates stay', async () => {
    const platform = await start(backend);
    platform.clock.now = new Date('2026-10-01T09:00:00.000Z');
    await platform.put('1042', { ...sara, active: false });
    await platform.put('1044', sara);
    platform.clock.now = new Date('2026-10-20T09:00:00.000Z');
    await platform.put('1043', { ...sara, active: false });
    // The nightly sync says the same again: 1042 is inactive since the first of October still.
    await platform.put('1042', { ...sara, active: false });

    const server = await start(backend, { RETENTION_DAYS: '30' }, platform.databaseUrl);
    server.clock.now = new Date('2026-11-05T09:00:00.000Z');
    await server.app.ready();
    await expect.poll(server.log).toContain('people inactive past RETENTION_DAYS erased');
    expect(server.log()).toMatch(/"people":1,"retentionDays":30/);
    expect(server.log()).not.toMatch(new RegExp(`${sara.name}|${sara.email}`));
    expect((await server.get('1042')).json()).toEqual({
      marketing_id: '1042',
      name: null,
      team_leader_id: '7',
      email: null,
      active: false,
      inactive_since: '2026-10-01T09:00:00.000Z',
      updated_at: '2026-10-20T09:00:00.000Z',
    });
    // Inactive for 16 days, and active: as put.
    expect((await server.get('1043')).json()).toMatchObject({ ...sara, active: false });
    expect((await server.get('1044')).json()).toMatchObject({ ...sara, active: true });

    // A platform that still sends the person puts the name back, until the next run.
    await server.put('1042', { ...sara, active: false });
    expect((await server.get('1042')).json()).toMatchObject({
      name: sara.name,
      inactive_since: '2026-10-01T09:00:00.000Z',
    });
  });
});

describe('PEOPLE_API_KEY', () => {
  it('is 32 characters or more, one key or two', () => {
    expect(() => loadConfig({ PEOPLE_API_KEY: 'short' })).toThrow(/PEOPLE_API_KEY/);
    expect(() => loadConfig({ PEOPLE_API_KEY: `${key},${nextKey},${key}` })).toThrow(
      /PEOPLE_API_KEY/,
    );
    expect(loadConfig({ PEOPLE_API_KEY: ` ${key} , ${nextKey}` }).peopleApiKeys).toEqual([
      key,
      nextKey,
    ]);
  });
});
