import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildPayload, registrationSchema } from '../../domain/registration';
import {
  buildTestApp,
  describeOnBackends,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { newWebhookSecret, startWebhookReceiver } from '../../../testing/webhook-receiver';
import { personCommand } from '../cli/person';
import { changesPerMinute, refusedPerMinute } from '../plugins/leads';

// Issue 26: the provider's CRM tells what became of a lead.

const key = randomBytes(24).toString('base64url');
const nextKey = randomBytes(24).toString('base64url');
const sara = { name: 'سارة القحطاني', email: 'sara@example.com', phone: '966512345678' };
const premium42 = { packageName: 'premium_reco', marketingId: '42' };

async function start(backend: TestBackend, env: Record<string, string> = {}) {
  const clock = { now: new Date('2026-11-25T09:00:00.000Z') };
  const test = await buildTestApp(
    backend,
    { LEADS_API_KEY: `${key},${nextKey}`, ...env },
    { now: () => clock.now, webhookDelivery: { pollMs: 20 } },
  );
  const signUp = async (phone = sara.phone) => {
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/external-register',
      payload: buildPayload({ ...sara, phone }, premium42),
    });
    expect(response.statusCode).toBe(201);
    return response.json<{ id: string }>().id;
  };
  /** With the CRM's key, or the Authorization header given (null: none). */
  const setStatus = (
    id: string,
    payload: unknown,
    authorization: string | null = `Bearer ${key}`,
  ) =>
    test.app.inject({
      method: 'POST',
      url: `/api/leads/${encodeURIComponent(id)}/status`,
      headers: authorization === null ? {} : { authorization },
      payload: payload as Record<string, unknown>,
    });
  return { ...test, clock, signUp, setStatus };
}

async function person(databaseUrl: string, phone: string) {
  let out = '';
  const code = await personCommand.run(
    ['--phone', phone],
    { DATABASE_URL: databaseUrl },
    { out: (text) => (out += text), err: (text) => expect.fail(text) },
  );
  expect(code).toBe(0);
  return JSON.parse(out) as {
    submissions: {
      id: string;
      status: string | null;
      status_history: { status: string; previous_status: string; changed_by: string }[];
      webhook_events: { type: string }[];
    }[];
  };
}

describeOnBackends('POST /api/leads/:id/status on $name', (backend) => {
  it('sets the status, answers it with its time, and keeps every change in the history', async () => {
    const { signUp, setStatus, clock, rows, databaseUrl } = await start(backend);
    const id = await signUp();
    expect((await rows())[0]).toMatchObject({ status: 'new', status_changed_at: null });

    clock.now = new Date('2026-11-26T10:00:00.000Z');
    const contacted = await setStatus(id, { status: 'contacted' });
    expect(contacted.statusCode).toBe(200);
    expect(contacted.headers['cache-control']).toBe('no-store');
    expect(contacted.json()).toEqual({
      id,
      status: 'contacted',
      changed_at: '2026-11-26T10:00:00.000Z',
    });
    clock.now = new Date('2026-11-27T10:00:00.000Z');
    await setStatus(id, { status: 'lost' });
    clock.now = new Date('2026-11-28T10:00:00.000Z');
    // A lost lead can come back.
    expect((await setStatus(id, { status: 'client' })).json()).toMatchObject({ status: 'client' });

    expect((await rows())[0]).toMatchObject({
      status: 'client',
      status_changed_at: '2026-11-28T10:00:00.000Z',
    });
    const [lead] = (await person(databaseUrl, sara.phone)).submissions;
    expect(lead?.status_history).toEqual([
      {
        status: 'contacted',
        previous_status: 'new',
        changed_at: '2026-11-26T10:00:00.000Z',
        changed_by: 'api',
      },
      {
        status: 'lost',
        previous_status: 'contacted',
        changed_at: '2026-11-27T10:00:00.000Z',
        changed_by: 'api',
      },
      {
        status: 'client',
        previous_status: 'lost',
        changed_at: '2026-11-28T10:00:00.000Z',
        changed_by: 'api',
      },
    ]);
  });

  it('answers the same status again with the last real change, and changes nothing', async () => {
    const { signUp, setStatus, clock, databaseUrl } = await start(backend);
    const id = await signUp();
    // Never changed: a lead is new since it signed up.
    expect((await setStatus(id, { status: 'new' })).json()).toEqual({
      id,
      status: 'new',
      changed_at: '2026-11-25T09:00:00.000Z',
    });
    clock.now = new Date('2026-11-26T10:00:00.000Z');
    await setStatus(id, { status: 'qualified' });
    clock.now = new Date('2026-11-27T10:00:00.000Z');
    const again = await setStatus(id, { status: 'qualified' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({
      id,
      status: 'qualified',
      changed_at: '2026-11-26T10:00:00.000Z',
    });
    const [lead] = (await person(databaseUrl, sara.phone)).submissions;
    expect(lead?.status_history).toHaveLength(1);
  });

  it("applies a change sent for a repeat's id to its lead, and answers the lead's id", async () => {
    const { app, signUp, setStatus, rows } = await start(backend);
    const lead = await signUp();
    await signUp();
    const repeat = (await rows()).find((row) => row.repeat_of === lead)!;
    const response = await setStatus(repeat.id, { status: 'client' });
    expect(response.json()).toMatchObject({ id: lead, status: 'client' });
    const stored = await rows();
    expect(stored.find((row) => row.id === lead)).toMatchObject({ status: 'client' });
    expect(stored.find((row) => row.id === repeat.id)).toMatchObject({
      status: null,
      status_changed_at: null,
    });
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });

  it('refuses a missing or wrong key with 401, and takes either of two keys', async () => {
    const { signUp, setStatus, log } = await start(backend);
    const id = await signUp();
    for (const authorization of [
      null,
      'Bearer wrong',
      `Bearer ${key}x`,
      `Bearer ${key.slice(0, -1)}`,
      `Basic ${key}`,
      key,
      `Bearer ${key},${nextKey}`,
    ]) {
      const response = await setStatus(id, { status: 'client' }, authorization);
      expect(response.statusCode, String(authorization)).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
    expect((await setStatus(id, { status: 'contacted' }, `Bearer ${nextKey}`)).statusCode).toBe(
      200,
    );
    expect((await setStatus(id, { status: 'client' })).statusCode).toBe(200);
    expect(log()).not.toContain(key);
    expect(log()).not.toMatch(new RegExp(`${sara.phone}|${sara.name}|${sara.email}`));
  });

  it('answers 404 to an id that is no lead, and 400 to anything but {"status": a status}', async () => {
    const { app, signUp, setStatus, rows } = await start(backend);
    const id = await signUp();
    expect((await setStatus('no-such-id', { status: 'client' })).statusCode).toBe(404);
    expect((await setStatus(crypto.randomUUID(), { status: 'client' })).statusCode).toBe(404);
    for (const payload of [
      { status: 'won' },
      { status: 'Client' },
      { status: 'client', note: 'signed' },
      { state: 'client' },
      {},
      [],
      { status: 4 },
    ]) {
      const response = await setStatus(id, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const notJson = await app.inject({
      method: 'POST',
      url: `/api/leads/${id}/status`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"status": "client"',
    });
    expect(notJson.statusCode).toBe(400);
    expect((await rows())[0]).toMatchObject({ status: 'new' });
  });

  it('answers 404 to an id not shaped as one, a NUL byte among them, and logs no error', async () => {
    const { setStatus, log, rows } = await start(backend);
    for (const id of ['\u0000', `${crypto.randomUUID()}\u0000`, '\uFFFF']) {
      const response = await setStatus(id, { status: 'client' });
      expect(response.statusCode, JSON.stringify(id)).toBe(404);
      expect(response.json()).toEqual({ error: 'no lead with this id' });
    }
    expect(log()).not.toMatch(/"level":50/);
    expect(await rows()).toEqual([]);
  });

  it('does not exist without LEADS_API_KEY', async () => {
    const test = await buildTestApp(backend);
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/leads/some-id/status',
      headers: { authorization: `Bearer ${key}` },
      payload: { status: 'client' },
    });
    expect(response.statusCode).toBe(404);
  });

  it('answers no CORS, even to an origin the sign-up API allows', async () => {
    const origin = 'https://www.example.com';
    const { app, signUp } = await start(backend, { CORS_ORIGINS: origin });
    const id = await signUp();
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: `/api/leads/${id}/status`,
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const post = await app.inject({
      method: 'POST',
      url: `/api/leads/${id}/status`,
      headers: { origin, authorization: `Bearer ${key}` },
      payload: { status: 'client' },
    });
    expect(post.statusCode).toBe(200);
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
  });

  it(`lets a backfill of a thousand leads through (${changesPerMinute} a minute a key), and limits refused keys per address`, async () => {
    const { app, services, setStatus } = await start(backend);
    const ids = await Promise.all(
      Array.from({ length: 1_000 }, async (_, n) => {
        const input = registrationSchema.parse(
          buildPayload({ ...sara, phone: `9665${String(n).padStart(8, '0')}` }, premium42),
        );
        return (await services.registrations.register(input, new Date(), 'api')).id;
      }),
    );
    for (let start = 0; start < ids.length; start += 50) {
      const answers = await Promise.all(
        ids.slice(start, start + 50).map((id) => setStatus(id, { status: 'contacted' })),
      );
      expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
    }
    const last = await setStatus(ids[0]!, { status: 'client' });
    expect(last.headers['x-ratelimit-limit']).toBe(String(changesPerMinute));
    expect(last.headers['x-ratelimit-remaining']).toBe(String(changesPerMinute - ids.length - 1));

    for (let n = 0; n < refusedPerMinute; n += 1) {
      expect((await setStatus(ids[0]!, { status: 'lost' }, 'Bearer guess')).statusCode).toBe(401);
    }
    expect((await setStatus(ids[0]!, { status: 'lost' }, 'Bearer guess')).statusCode).toBe(429);
    const elsewhere = await app.inject({
      method: 'POST',
      url: `/api/leads/${ids[0]}/status`,
      remoteAddress: '198.51.100.9',
      headers: { authorization: 'Bearer guess' },
      payload: { status: 'lost' },
    });
    expect(elsewhere.statusCode).toBe(401);
    // The CRM's own key still passes from the address that guessed.
    expect((await setStatus(ids[0]!, { status: 'lost' })).statusCode).toBe(200);
  }, 60_000);

  it('queues registration.status_changed with the change it is about, delivered signed', async () => {
    const secret = newWebhookSecret();
    const endpoint = await startWebhookReceiver(secret);
    onTestFinished(() => endpoint.close());
    const { signUp, setStatus, clock, events } = await start(backend, {
      WEBHOOK_URL: endpoint.url,
      WEBHOOK_SECRET: secret,
    });
    const id = await signUp();
    await endpoint.waitFor(1);
    // Stored as delivered before the clock jumps a day: else its lease, by that clock, has run
    // out while the answer is being recorded, and the event is sent again (at least once).
    await expect.poll(async () => (await events())[0]?.status).toBe('delivered');
    clock.now = new Date('2026-11-26T10:00:00.000Z');
    await setStatus(id, { status: 'contacted' });
    clock.now = new Date('2026-11-26T11:00:00.000Z');
    await setStatus(id, { status: 'client' });
    // The same status again is no change: no event.
    await setStatus(id, { status: 'client' });
    await endpoint.waitFor(3);

    const changes = endpoint.received.filter(
      (event) => event.type === 'registration.status_changed',
    );
    expect(changes.map(({ timestamp, data }) => ({ timestamp, data }))).toEqual([
      {
        timestamp: '2026-11-26T10:00:00.000Z',
        data: {
          id,
          status: 'contacted',
          previous_status: 'new',
          changed_at: '2026-11-26T10:00:00.000Z',
        },
      },
      {
        timestamp: '2026-11-26T11:00:00.000Z',
        data: {
          id,
          status: 'client',
          previous_status: 'contacted',
          changed_at: '2026-11-26T11:00:00.000Z',
        },
      },
    ]);
    expect(endpoint.rejected()).toBe(0);
    expect(await events()).toHaveLength(3);
  });
});

describe('LEADS_API_KEY', () => {
  it('is 32 characters or more, one key or two', async () => {
    const { loadConfig } = await import('../env');
    expect(() => loadConfig({ LEADS_API_KEY: 'short' })).toThrow(/LEADS_API_KEY/);
    expect(() => loadConfig({ LEADS_API_KEY: `${key},short` })).toThrow(/LEADS_API_KEY/);
    expect(() => loadConfig({ LEADS_API_KEY: `${key},${nextKey},${key}` })).toThrow(
      /LEADS_API_KEY/,
    );
    expect(loadConfig({ LEADS_API_KEY: ` ${key} , ${nextKey}` }).leadsApiKeys).toEqual([
      key,
      nextKey,
    ]);
  });
});
