import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  generateKeyPair,
  SignJWT,
  UnsecuredJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { arStats } from '../../domain/catalogue/marketer-stats';
import { ar } from '../../domain/catalogue/shared';
import { marketerStatsMeta } from '../../domain/marketer-stats';
import type { LeadStatus } from '../../domain/lead-status';
import type { MarketerStats } from '../../domain/marketer-stats';
import { buildPayload, registrationSchema } from '../../domain/registration';
import { buildTestApp, describeOnBackends } from '../../../testing/server-test-helpers';

const issuer = 'https://platform.example';
const audience = 'tasjeel';
const url = '/api/marketer/stats';
const phone = 'Mozilla/5.0 (Linux; Android 14; SM-A546E) AppleWebKit/537.36 Chrome/126.0 Mobile';
const laptop = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } };
}

/** The provider's platform: it publishes its public keys at /.well-known/jwks.json. */
const platform = {
  keys: [] as SigningKey[],
  /** Set: the platform answers this status, with no key set. */
  failing: undefined as number | undefined,
  fetches: 0,
  server: undefined as Server | undefined,
  url: '',
};

beforeAll(async () => {
  platform.server = createServer((_request, response) => {
    platform.fetches += 1;
    if (platform.failing !== undefined) {
      response.statusCode = platform.failing;
      response.end();
      return;
    }
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: platform.keys.map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => platform.server!.listen(0, '127.0.0.1', resolve));
  const { port } = platform.server.address() as AddressInfo;
  platform.url = `http://127.0.0.1:${port}/.well-known/jwks.json`;
});
afterAll(() => new Promise((resolve) => platform.server?.close(resolve)));
afterEach(() => {
  vi.useRealTimers();
  platform.failing = undefined;
});

const now = () => Math.floor(Date.now() / 1000);

/** A token as the platform signs it; `claims` change what a test needs. */
function token(key: SigningKey, claims: JWTPayload = {}): Promise<string> {
  const payload = { sub: '42', role: 'marketing', iss: issuer, aud: audience, iat: now() };
  return new SignJWT({ ...payload, exp: now() + 3600, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .sign(key.privateKey);
}

const jwksEnv = () => ({
  MARKETER_AUTH_JWKS_URL: platform.url,
  MARKETER_AUTH_ISSUER: issuer,
  MARKETER_AUTH_AUDIENCE: audience,
  MARKETER_AUTH_COOKIE: 'platform_session',
});

describeOnBackends('on $name', (backend) => {
  async function start(env: Record<string, string> = jwksEnv(), now?: () => Date) {
    const key = await signingKey(`key-${platform.keys.length}`);
    platform.keys = [key];
    const test = await buildTestApp(backend, env, { now });
    const stats = (bearer: string | undefined, query = '') =>
      test.app.inject({
        method: 'GET',
        url: `${url}${query}`,
        headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
      });
    return { ...test, key, stats };
  }

  it('gives a marketer the numbers of their links: visits through the pages, first sign-ups through the API', async () => {
    const { app, services, key, stats } = await start();
    const visit = (path: string, agent = phone, remoteAddress = '203.0.113.7') =>
      app.inject({ method: 'GET', url: path, remoteAddress, headers: { 'user-agent': agent } });
    await visit('/register/register-client/premium_reco/42');
    await visit('/register/register-client/premium_reco/42');
    await visit('/register/register-client/premium_reco/42', laptop);
    await visit('/register/marketer/42');
    await visit('/register/marketer/43');
    await visit('/register/register-client/premium_reco');
    await new Promise((resolve) => setImmediate(resolve));
    await services.visits.flush();
    const signUp = (phoneNumber: string, route: { packageName?: string; marketingId?: string }) =>
      app.inject({
        method: 'POST',
        url: '/api/external-register',
        payload: buildPayload({ name: 'سارة', email: '', phone: phoneNumber }, route),
      });
    await signUp('966512345678', { packageName: 'premium_reco', marketingId: '42' });
    // The same phone and notes again: a repeat, not a second sign-up.
    await signUp('966512345678', { packageName: 'premium_reco', marketingId: '42' });
    await signUp('966512345679', { marketingId: '42' });
    await signUp('966512345670', { marketingId: '43' });

    const response = await stats(await token(key));

    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('private, no-store');
    const body = response.json<{ by_day: { date: string }[] }>();
    const today = new Date().toISOString().slice(0, 10);
    expect(body).toMatchObject({
      marketing_id: '42',
      days: 30,
      totals: {
        visits: 3,
        unique_visitors: 3,
        leads: 2,
        sign_ups: 2,
        conversion_percent: 66.7,
        clients: 0,
        client_percent: 0,
        awaiting_review: 0,
        not_credited: 0,
      },
      by_package: [
        { package_key: null, visits: 1, unique_visitors: 1, leads: 1, sign_ups: 1, clients: 0 },
        {
          package_key: 'premium_reco',
          visits: 2,
          unique_visitors: 2,
          leads: 1,
          sign_ups: 1,
          clients: 0,
        },
      ],
    });
    expect(body).not.toHaveProperty('team');
    expect(body.by_day).toHaveLength(30);
    expect(body.by_day.at(-1)).toEqual({
      date: today,
      visits: 3,
      leads: 2,
      sign_ups: 2,
      clients: 0,
    });
  });

  it('counts the finished days, rolled up, with today, each on its own date', async () => {
    const clock = { now: new Date('2026-11-22T12:00:00Z') };
    const { app, services, key, stats } = await start(jwksEnv(), () => clock.now);
    const visit = async (agent: string) => {
      await app.inject({
        method: 'GET',
        url: '/register/marketer/42',
        headers: { 'user-agent': agent },
      });
      await new Promise((resolve) => setImmediate(resolve));
      await services.visits.flush();
    };
    await visit(phone);
    await app.inject({
      method: 'POST',
      url: '/api/external-register',
      payload: buildPayload(
        { name: 'سارة', email: '', phone: '966512345678' },
        { marketingId: '42' },
      ),
    });
    clock.now = new Date('2026-11-23T10:00:00Z');
    // The first flush of a new day rolls the day before up into visit_totals.
    await visit(laptop);

    const bearer = await token(key);
    const week = (await stats(bearer, '?days=7')).json<{ by_day: unknown[] }>();
    expect(week).toMatchObject({
      totals: { visits: 2, unique_visitors: 2, leads: 1, sign_ups: 1 },
    });
    expect(week.by_day.slice(-2)).toEqual([
      { date: '2026-11-22', visits: 1, leads: 1, sign_ups: 1, clients: 0 },
      { date: '2026-11-23', visits: 1, leads: 0, sign_ups: 0, clients: 0 },
    ]);
    expect((await stats(bearer, '?days=1')).json()).toMatchObject({
      totals: { visits: 1, leads: 0, sign_ups: 0, client_percent: null },
      by_day: [{ date: '2026-11-23', visits: 1, leads: 0, sign_ups: 0, clients: 0 }],
    });
  });

  it('answers the period asked for: today, 7, 30 or 90 days, and nothing else', async () => {
    const { key, stats } = await start();
    const bearer = await token(key);
    for (const days of [1, 7, 30, 90]) {
      const response = await stats(bearer, `?days=${days}`);
      expect(response.json()).toMatchObject({ days, totals: { visits: 0, leads: 0, sign_ups: 0 } });
      expect(response.json<{ by_day: unknown[] }>().by_day).toHaveLength(days);
    }
    for (const query of ['?days=365', '?days=7&days=30']) {
      const response = await stats(bearer, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toEqual({ error: arStats.errorPeriod });
    }
  });

  it("never shows marketer 43's numbers to a token of 42, whatever the query says", async () => {
    const { app, key, stats } = await start();
    await app.inject({
      method: 'POST',
      url: '/api/external-register',
      payload: buildPayload(
        { name: 'سارة', email: '', phone: '966512345670' },
        { marketingId: '43' },
      ),
    });
    const bearer = await token(key, { sub: '42' });
    for (const query of ['', '?marketing_id=43', '?sub=43&days=30', '?days=30&marketingId=43']) {
      const response = await stats(bearer, query);
      if (response.statusCode === 200) {
        expect(response.json()).toMatchObject({
          marketing_id: '42',
          totals: { leads: 0, sign_ups: 0 },
        });
      } else {
        expect(response.statusCode).toBe(400);
      }
    }
    expect((await stats(await token(key, { sub: '43' }))).json()).toMatchObject({
      marketing_id: '43',
      totals: { leads: 1, sign_ups: 1 },
    });
  });

  it('refuses a request without a token, or with one it cannot trust: 401 in Arabic', async () => {
    const { key, stats } = await start();
    const stranger = await signingKey(key.kid);
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    const publicPem = new TextEncoder().encode(JSON.stringify(await exportJWK(publicKey)));
    const refused: [string, string | undefined][] = [
      ['no token', undefined],
      ['not a token', 'not.a.token'],
      ['expired', await token(key, { exp: now() - 61 })],
      ['not yet valid', await token(key, { nbf: now() + 120 })],
      ['from another issuer', await token(key, { iss: 'https://evil.example' })],
      ['for another audience', await token(key, { aud: 'another-app' })],
      ['signed with another key under the same kid', await token(stranger)],
      [
        'unsigned (alg: none)',
        new UnsecuredJWT({ role: 'marketing', sub: '42', iss: issuer, aud: audience })
          .setExpirationTime(now() + 3600)
          .encode(),
      ],
      [
        'HS256, with the public key as its secret',
        await new SignJWT({ role: 'marketing', iss: issuer, aud: audience })
          .setProtectedHeader({ alg: 'HS256', kid: key.kid })
          .setSubject('42')
          .setExpirationTime(now() + 3600)
          .sign(publicPem),
      ],
      ['made never to expire (exp: 1e308)', await token(key, { exp: 1e308 })],
      ['made to live 25 hours from its iat', await token(key, { exp: now() + 25 * 3600 })],
      [
        'without an iat, made to live 25 hours from now',
        await token(key, { iat: undefined, exp: now() + 25 * 3600 }),
      ],
      [
        'without an expiry',
        await new SignJWT({ role: 'marketing', iss: issuer, aud: audience })
          .setProtectedHeader({ alg: 'ES256', kid: key.kid })
          .setSubject('42')
          .sign(key.privateKey),
      ],
    ];
    for (const [reason, bearer] of refused) {
      const response = await stats(bearer);
      expect(response.statusCode, reason).toBe(401);
      expect(response.json()).toEqual({ error: arStats.errorSignIn });
      expect(response.headers['cache-control']).toBe('private, no-store');
    }
  });

  it('accepts a token living up to MARKETER_AUTH_MAX_AGE', async () => {
    const { key, stats } = await start({ ...jwksEnv(), MARKETER_AUTH_MAX_AGE: '48h' });
    expect((await stats(await token(key, { exp: now() + 25 * 3600 }))).statusCode).toBe(200);
    expect((await stats(await token(key, { exp: now() + 49 * 3600 }))).statusCode).toBe(401);
  });

  it('allows 60 seconds of clock difference', async () => {
    const { key, stats } = await start();
    expect((await stats(await token(key, { exp: now() - 30 }))).statusCode).toBe(200);
    expect((await stats(await token(key, { nbf: now() + 30 }))).statusCode).toBe(200);
  });

  it('answers 403 to a signed-in user who is not a marketer', async () => {
    const { key, stats } = await start();
    for (const claims of [{ role: 'admin' }, { role: undefined }, { role: ['marketing'] }]) {
      const response = await stats(await token(key, claims));
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ error: ar.errorNotAuthorized });
    }
    expect((await stats(await token(key, { role: 'team_leader_marketing' }))).statusCode).toBe(200);
  });

  it('accepts a rotated key (a new kid) without a restart', async () => {
    const { key, stats } = await start();
    expect((await stats(await token(key))).statusCode).toBe(200);
    const rotated = await signingKey(`${key.kid}-rotated`);
    platform.keys = [key, rotated];
    // A kid it does not know fetches the keys again, at most every 30 seconds.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    const fetches = platform.fetches;
    expect((await stats(await token(rotated))).statusCode).toBe(200);
    expect(platform.fetches).toBe(fetches + 1);
    expect((await stats(await token(key))).statusCode).toBe(200);
    expect(platform.fetches).toBe(fetches + 1);
  });

  it("answers 503, not 401, while the platform's keys cannot be fetched", async () => {
    const { key, stats, log } = await start();
    platform.failing = 500;
    const response = await stats(await token(key));
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ error: arStats.errorStats });
    expect(log()).toContain('could not be fetched');
    platform.failing = undefined;
    // The keys are fetched at most every 30 seconds, whether the last fetch worked or not.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    expect((await stats(await token(key))).statusCode).toBe(200);
  });

  it('limits before verifying, and fetches the failing keys once, logged once', async () => {
    const { app, key, log } = await start();
    platform.failing = 500;
    const fetches = platform.fetches;
    // Well-formed, claiming one of the platform's keys, signed by nobody.
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: key.kid })).toString(
      'base64url',
    );
    const claims = Buffer.from(JSON.stringify({ sub: '42', exp: now() + 60 })).toString(
      'base64url',
    );
    const forged = `${header}.${claims}.${Buffer.alloc(64).toString('base64url')}`;
    const statuses = new Map<number, number>();
    for (let i = 0; i < 200; i += 1) {
      const response = await app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${forged}` },
        remoteAddress: '203.0.113.9',
      });
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 503: 120, 429: 80 });
    expect(platform.fetches - fetches).toBe(1);
    expect(log().match(/could not be fetched/g)).toHaveLength(1);
  });

  it('takes MARKETER_AUTH_CHECKS_PER_MINUTE requests a minute from one address, then 429', async () => {
    const { app, key } = await start({ ...jwksEnv(), MARKETER_AUTH_CHECKS_PER_MINUTE: '5' });
    const bearer = await token(key);
    const statuses: number[] = [];
    for (const remoteAddress of [...Array(6).fill('203.0.113.7'), '198.51.100.7']) {
      const response = await app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${bearer}` },
        remoteAddress,
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 200]);
  });

  it('keeps the last good keys while the platform fails, for a day', async () => {
    const { key, stats } = await start();
    expect((await stats(await token(key))).statusCode).toBe(200);
    platform.failing = 500;
    // Past the ten minutes after which the keys are fetched again.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 11 * 60_000 });
    expect((await stats(await token(key))).statusCode).toBe(200);
    vi.setSystemTime(Date.now() + 24 * 3_600_000);
    expect((await stats(await token(key))).statusCode).toBe(503);
  });

  it('takes the token from the platform cookie when it is named', async () => {
    const { app, key } = await start();
    const response = await app.inject({
      method: 'GET',
      url,
      headers: { cookie: `theme=dark; platform_session=${await token(key)}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ marketing_id: '42' });
    const otherCookie = await app.inject({
      method: 'GET',
      url,
      headers: { cookie: `session=${await token(key)}` },
    });
    expect(otherCookie.statusCode).toBe(401);
  });

  it('verifies HS256 tokens with a shared secret, and no other algorithm', async () => {
    const secret = 'a-secret-the-platform-shares-with-tasjeel';
    const { app, key } = await start({ MARKETER_AUTH_SECRET: secret });
    const hs256 = await new SignJWT({ role: 'marketing' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('42')
      .setExpirationTime(now() + 3600)
      .sign(new TextEncoder().encode(secret));
    const get = (bearer: string) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${bearer}` } });
    expect((await get(hs256)).statusCode).toBe(200);
    expect((await get(await token(key))).statusCode).toBe(401);
  });

  it('limits each marketer to 30 requests a minute', async () => {
    const { key, stats } = await start();
    const [first, second] = [await token(key, { sub: '42' }), await token(key, { sub: '43' })];
    for (let i = 0; i < 30; i += 1) expect((await stats(first)).statusCode).toBe(200);
    const limited = await stats(first);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: ar.errorTooManyRequests });
    expect((await stats(second)).statusCode).toBe(200);
  });

  it('tells the pages where the platform keeps its token', async () => {
    const { app } = await start({ ...jwksEnv(), MARKETER_AUTH_STORAGE_KEY: 'platform"token' });
    const page = await app.inject({ method: 'GET', url: '/register/marketer/42' });
    expect(page.body).toContain(`<meta name="${marketerStatsMeta}" content="platform&#34;token">`);
  });

  describe('what became of the leads, and a team leader’s team', () => {
    const clock = { now: new Date('2026-11-25T12:00:00Z') };
    /** Marketers 42 (the leader), 43, 44 and 45: visits and leads on 2026-11-24 and 25. */
    async function withTeam(env: Record<string, string> = jwksEnv()) {
      clock.now = new Date('2026-11-24T12:00:00Z');
      const test = await start(env, () => clock.now);
      const { app, services } = test;
      const visit = async (marketingId: string, agent: string) => {
        await app.inject({
          url: `/register/marketer/${marketingId}`,
          headers: { 'user-agent': agent },
        });
        await new Promise((resolve) => setImmediate(resolve));
        await services.visits.flush();
      };
      let phones = 0;
      const signUp = async (marketingId: string) =>
        (
          await services.registrations.register(
            registrationSchema.parse(
              buildPayload(
                {
                  name: 'سارة',
                  email: '',
                  phone: `9665000000${String(++phones).padStart(2, '0')}`,
                },
                { marketingId },
              ),
            ),
            clock.now,
            'api',
          )
        ).id;
      const client = (id: string, status: LeadStatus = 'client') =>
        services.leadStatuses.change({ id }, status, 'api', clock.now);
      // The 24th: 42 brings two leads, one a client later; 43 one, a client.
      await visit('42', phone);
      await client(await signUp('42'));
      await signUp('42');
      await visit('43', phone);
      await visit('43', laptop);
      await client(await signUp('43'));
      clock.now = new Date('2026-11-25T12:00:00Z');
      // The 25th: 42 one more lead, lost; 44 one lead; 99, in no team, a client.
      await visit('42', laptop);
      await client(await signUp('42'), 'lost');
      await signUp('44');
      await client(await signUp('99'));
      return test;
    }

    it('gives a marketer their clients: by package, by the day each lead signed up, and their rate', async () => {
      const { key, stats } = await withTeam();
      const body = (await stats(await token(key), '?days=7')).json<MarketerStats>();
      expect(body.totals).toEqual({
        visits: 2,
        unique_visitors: 2,
        leads: 3,
        sign_ups: 3,
        clients: 1,
        conversion_percent: 150,
        client_percent: 33.3,
        awaiting_review: 0,
        not_credited: 0,
      });
      expect(body.by_package).toEqual([
        { package_key: null, visits: 2, unique_visitors: 2, leads: 3, sign_ups: 3, clients: 1 },
      ]);
      expect(body.by_day.slice(-2)).toEqual([
        { date: '2026-11-24', visits: 1, leads: 2, sign_ups: 2, clients: 1 },
        { date: '2026-11-25', visits: 1, leads: 1, sign_ups: 1, clients: 0 },
      ]);
      expect(body).not.toHaveProperty('team');
      expect(body).not.toHaveProperty('team_totals');
    });

    it('gives a team leader the numbers of exactly the members their token lists', async () => {
      const { key, stats } = await withTeam();
      const leader = await token(key, {
        role: 'team_leader_marketing',
        // An id as a number, one twice, one with nothing yet, and one that is not an id.
        team: ['43', 44, '43', '45', { id: '99' }],
      });
      const body = (await stats(leader, '?days=7')).json<MarketerStats>();
      expect(body.marketing_id).toBe('42');
      expect(body.totals).toMatchObject({ visits: 2, leads: 3, sign_ups: 3, clients: 1 });
      expect(body.team).toEqual([
        {
          marketing_id: '43',
          name: null,
          visits: 2,
          unique_visitors: 2,
          leads: 1,
          sign_ups: 1,
          clients: 1,
        },
        {
          marketing_id: '44',
          name: null,
          visits: 0,
          unique_visitors: 0,
          leads: 1,
          sign_ups: 1,
          clients: 0,
        },
        {
          marketing_id: '45',
          name: null,
          visits: 0,
          unique_visitors: 0,
          leads: 0,
          sign_ups: 0,
          clients: 0,
        },
      ]);
      expect(body.team_totals).toEqual({
        visits: 2,
        unique_visitors: 2,
        leads: 2,
        sign_ups: 2,
        clients: 1,
      });
      // Today only: 43's day is the 24th.
      expect((await stats(leader, '?days=1')).json<MarketerStats>().team_totals).toEqual({
        visits: 0,
        unique_visitors: 0,
        leads: 1,
        sign_ups: 1,
        clients: 0,
      });
      // No query adds a member.
      for (const query of ['?days=7&team=99', '?days=7&marketing_id=99&team[]=99']) {
        const asked = await stats(leader, query);
        if (asked.statusCode === 200) {
          expect(asked.json<MarketerStats>().team?.map((m) => m.marketing_id)).toEqual([
            '43',
            '44',
            '45',
          ]);
        } else {
          expect(asked.statusCode).toBe(400);
        }
      }
    });

    it('gives a team leader without members an empty team', async () => {
      const { key, stats } = await withTeam();
      // No list, and none in the directory; or an empty list.
      for (const team of [undefined, [], 'not a list']) {
        const body = (
          await stats(await token(key, { role: 'team_leader_marketing', team }), '?days=7')
        ).json<MarketerStats>();
        expect(body.totals).toMatchObject({ leads: 3, sign_ups: 3 });
        expect(body.team).toEqual([]);
        expect(body.team_totals).toEqual({
          visits: 0,
          unique_visitors: 0,
          leads: 0,
          sign_ups: 0,
          clients: 0,
        });
      }
    });

    it("gives a team leader whose token lists no team the directory's: the active people they lead", async () => {
      const { key, stats, services } = await withTeam();
      const person = (marketing_id: string, team_leader_id: string | null, active = true) => ({
        marketing_id,
        name: `مسوق ${marketing_id}`,
        team_leader_id,
        email: null,
        active,
      });
      await services.people.put(
        [
          person('42', '42'),
          person('43', '42'),
          person('44', '42'),
          person('45', '42', false),
          person('46', '42'),
          person('99', '7'),
        ],
        clock.now,
      );
      for (const team of [undefined, 'not a list']) {
        const body = (
          await stats(await token(key, { role: 'team_leader_marketing', team }), '?days=7')
        ).json<MarketerStats>();
        // Not the leader, even when the directory names them their own leader; not 45, inactive.
        expect(body.team).toEqual([
          {
            marketing_id: '43',
            name: 'مسوق 43',
            visits: 2,
            unique_visitors: 2,
            leads: 1,
            sign_ups: 1,
            clients: 1,
          },
          {
            marketing_id: '44',
            name: 'مسوق 44',
            visits: 0,
            unique_visitors: 0,
            leads: 1,
            sign_ups: 1,
            clients: 0,
          },
          {
            marketing_id: '46',
            name: 'مسوق 46',
            visits: 0,
            unique_visitors: 0,
            leads: 0,
            sign_ups: 0,
            clients: 0,
          },
        ]);
        expect(body.team_totals).toMatchObject({ leads: 2, clients: 1 });
      }
      // The token's signed list, when it carries one, is the team: the directory's is not added.
      for (const [team, members] of <[string[], string[]][]>[
        [
          ['45', '99'],
          ['45', '99'],
        ],
        [[], []],
      ]) {
        const body = (
          await stats(await token(key, { role: 'team_leader_marketing', team }), '?days=7')
        ).json<MarketerStats>();
        expect(body.team?.map((member) => member.marketing_id)).toEqual(members);
        // Named by the directory, whoever lists them.
        expect(body.team?.map((member) => member.name)).toEqual(members.map((id) => `مسوق ${id}`));
      }
      // A member the directory does not know stays their id alone.
      const unknown = (
        await stats(
          await token(key, { role: 'team_leader_marketing', team: ['43', '77'] }),
          '?days=7',
        )
      ).json<MarketerStats>();
      expect(unknown.team?.map(({ marketing_id, name }) => [marketing_id, name])).toEqual([
        ['43', 'مسوق 43'],
        ['77', null],
      ]);
      // A marketer the directory names a leader is still a marketer.
      const marketer = (
        await stats(await token(key, { sub: '7' }), '?days=7')
      ).json<MarketerStats>();
      expect(marketer).not.toHaveProperty('team');
    });

    it('never gives a marketer a team, whatever claims their token carries', async () => {
      const { key, stats } = await withTeam();
      const body = (
        await stats(await token(key, { role: 'marketing', team: ['43', '44'] }), '?days=7')
      ).json<MarketerStats>();
      expect(body).not.toHaveProperty('team');
      expect(body).not.toHaveProperty('team_totals');
      expect(body.totals).toMatchObject({ leads: 3, sign_ups: 3, clients: 1 });
    });

    it('reads the members from the claim MARKETER_AUTH_TEAM_CLAIM names', async () => {
      const { key, stats } = await withTeam({
        ...jwksEnv(),
        MARKETER_AUTH_TEAM_CLAIM: 'https://platform.example/team',
      });
      const body = (
        await stats(
          await token(key, {
            role: 'team_leader_marketing',
            team: ['44'],
            'https://platform.example/team': ['43'],
          }),
          '?days=7',
        )
      ).json<MarketerStats>();
      expect(body.team?.map((member) => member.marketing_id)).toEqual(['43']);
    });
  });

  it('is off without MARKETER_AUTH_*: the path is a 404 like any other', async () => {
    const { app, stats, key } = await start({});
    const response = await stats(await token(key));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: ar.errorBadRequest });
    const page = await app.inject({ method: 'GET', url: '/register/marketer/42' });
    expect(page.body).not.toContain(marketerStatsMeta);
  });
});
