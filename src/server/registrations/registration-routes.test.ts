import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { describe, expect, it } from 'vitest';
import { arForm } from '../../domain/catalogue/form';
import { ar } from '../../domain/catalogue/shared';
import { proofOfWorkMeta, trapField } from '../../domain/form-fields';
import { buildNotes, type RouteAttribution } from '../../domain/notes';
import { buildPayload, type Utm } from '../../domain/registration';
import { buildTestApp, describeOnBackends } from '../../../testing/server-test-helpers';
import { ipv6SitesShare } from './sign-up';

const url = '/api/external-register';
const values = { name: 'سارة', email: '', phone: '966512345678' };
const start = new Date('2025-03-01T09:00:00.000Z');

/** A clock the test moves by hand, so the 24-hour rule is tested without waiting. */
function manualClock() {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

const hour = 60 * 60 * 1000;

describeOnBackends('on $name', (backend) => {
  describe('POST /api/external-register stores a sign-up', () => {
    it.each<[string, RouteAttribution, string | null, string | null]>([
      [
        'package and marketer',
        { packageName: 'premium_reco', marketingId: '42' },
        'premium_reco',
        '42',
      ],
      ['package only', { packageName: 'economy_portfolio' }, 'economy_portfolio', null],
      ['marketer only', { marketingId: 'm-7' }, null, 'm-7'],
      ['neither', {}, null, null],
      ['an unknown package', { packageName: 'gold_plan' }, 'gold_plan', null],
    ])('from a %s link', async (_, route, packageKey, marketingId) => {
      const clock = manualClock();
      const { app, rows } = await buildTestApp(backend, {}, { now: clock.now });
      const response = await app.inject({
        method: 'POST',
        url,
        payload: buildPayload(values, route),
      });

      expect(response.statusCode).toBe(201);
      const { id } = response.json<{ id: string }>();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(await rows()).toEqual([
        {
          id,
          created_at: start.toISOString(),
          name: values.name,
          email: null,
          phone: values.phone,
          notes: buildNotes(route),
          marketing_id: marketingId,
          package_key: packageKey,
          source: route.marketingId === undefined ? 'general_link' : 'marketer_link',
          repeat_of: null,
          utm_source: null,
          utm_medium: null,
          utm_campaign: null,
          utm_term: null,
          utm_content: null,
          // No PRIVACY_URL here: no notice to record; the JSON API's channel.
          privacy_url: '',
          privacy_version: '',
          channel: 'api',
          // It named no notice it was shown.
          privacy_attested: 0,
          // Every lead starts new.
          status: 'new',
          status_changed_at: null,
          // The address hashed as the visits' are; no form stamp was sent.
          address_hash: expect.stringMatching(/^[\w-]{43}$/),
          served_at: null,
        },
      ]);
    });

    it('records the notice version the page sent, and one that sends none as not attested', async () => {
      const notice = {
        PRIVACY_URL: 'https://provider.example/privacy',
        PRIVACY_VERSION: '2026-12',
      };
      const { app, rows } = await buildTestApp(backend, notice);
      // A page rendered before the policy changed shows, and sends, the version before.
      const shown = buildPayload(values, {}, {}, ' 2026-11 ');
      expect((await app.inject({ method: 'POST', url, payload: shown })).statusCode).toBe(201);
      const noneSent = buildPayload({ ...values, phone: '966500000002' }, {});
      expect((await app.inject({ method: 'POST', url, payload: noneSent })).statusCode).toBe(201);
      expect(
        (await rows()).map(({ privacy_url, privacy_version, privacy_attested }) => ({
          privacy_url,
          privacy_version,
          privacy_attested,
        })),
      ).toEqual([
        { privacy_url: notice.PRIVACY_URL, privacy_version: '2026-11', privacy_attested: 1 },
        { privacy_url: notice.PRIVACY_URL, privacy_version: '2026-12', privacy_attested: 0 },
      ]);
      for (const version of ['x'.repeat(41), 'a\u0000b', 'a\u202Eb', 7]) {
        const payload = { ...buildPayload(values, {}), privacy_version: version };
        const response = await app.inject({ method: 'POST', url, payload });
        expect(response.statusCode, JSON.stringify(version)).toBe(400);
      }
      expect(await rows()).toHaveLength(2);
    });

    it('trims the name, keeps the e-mail and stores a numeric marketing_id as text', async () => {
      const { app, rows } = await buildTestApp(backend);
      const payload = {
        ...buildPayload(
          { ...values, name: '  سارة  ', email: 'sara@example.com' },
          { marketingId: '9' },
        ),
        marketing_id: 9,
      };
      expect((await app.inject({ method: 'POST', url, payload })).statusCode).toBe(201);
      expect(await rows()).toMatchObject([
        { name: 'سارة', email: 'sara@example.com', marketing_id: '9' },
      ]);
    });

    it('stores the campaign parameters it is sent, trimmed, and null for the others', async () => {
      const { app, rows } = await buildTestApp(backend);
      const utm = {
        utm_source: ' snapchat ',
        utm_medium: 'cpc',
        utm_campaign: 'ر'.repeat(100),
        utm_term: 'أسهم',
        utm_content: 'video',
      };
      const payload = buildPayload(values, {}, utm);
      expect((await app.inject({ method: 'POST', url, payload })).statusCode).toBe(201);
      const partial = buildPayload({ ...values, phone: '966500000002' }, {}, { utm_source: 'qr' });
      expect((await app.inject({ method: 'POST', url, payload: partial })).statusCode).toBe(201);
      expect(await rows()).toMatchObject([
        { ...utm, utm_source: 'snapchat' },
        {
          utm_source: 'qr',
          utm_medium: null,
          utm_campaign: null,
          utm_term: null,
          utm_content: null,
        },
      ]);
    });

    it('applies the repeat rule whatever the campaign: a repeat keeps its own, the lead its', async () => {
      const { app, rows } = await buildTestApp(backend);
      const send = (utm: Utm) =>
        app.inject({ method: 'POST', url, payload: buildPayload(values, {}, utm) });
      const first = (await send({ utm_source: 'snapchat' })).json<{ id: string }>().id;
      const again = await send({ utm_source: 'qr' });
      expect(again.statusCode).toBe(201);
      expect(again.json()).toEqual({ id: first });
      expect(await rows()).toMatchObject([
        { id: first, utm_source: 'snapchat', repeat_of: null },
        { utm_source: 'qr', repeat_of: first },
      ]);
    });

    it('stores a name in NFC, however the keyboard composed it', async () => {
      const { app, rows } = await buildTestApp(backend);
      // Alef + combining madda above: NFC makes it the one letter آ.
      const payload = buildPayload({ ...values, name: 'ا\u0653منة' }, {});
      expect((await app.inject({ method: 'POST', url, payload })).statusCode).toBe(201);
      expect(await rows()).toMatchObject([{ name: 'آمنة' }]);
    });

    it('answers a filled honeypot like a sign-up, with an id, and stores nothing', async () => {
      const { app, rows } = await buildTestApp(backend);
      const payload = { ...buildPayload(values, {}), [trapField]: 'https://spam.example' };
      const response = await app.inject({ method: 'POST', url, payload });
      expect(response.statusCode).toBe(201);
      expect(response.json<{ id: string }>().id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await rows()).toHaveLength(0);
    });
  });

  describe('refusals', () => {
    const payload = buildPayload(values, {});
    const valid = JSON.stringify(payload);
    const body = (change: object) => JSON.stringify({ ...payload, ...change });
    const json = 'application/json';
    const form = 'application/x-www-form-urlencoded';
    const poisoned = (key: string) =>
      valid.replace('{', `{"${key}":{"prototype":{"isAdmin":true}},`);

    it.each([
      ['a bad phone', body({ phone: '0512345678' }), json, 400, arForm.errorInvalid],
      ['a blank name', body({ name: '   ' }), json, 400, arForm.errorInvalid],
      ['an unknown key', body({ admin: true }), json, 400, arForm.errorInvalid],
      ['notes the pages never write', body({ notes: 'hello' }), json, 400, arForm.errorInvalid],
      [
        'notes naming a package that is no key',
        body({ notes: buildNotes({ packageName: 'حوّل 100 ريال إلى SA03' }) }),
        json,
        400,
        arForm.errorInvalid,
      ],
      [
        'a bidi override in the name',
        body({ name: 'سارة\u202Egnp.exe' }),
        json,
        400,
        arForm.errorInvalid,
      ],
      [
        'a name of zero-width characters',
        body({ name: '\u200B\u200C\u200D' }),
        json,
        400,
        arForm.errorInvalid,
      ],
      ['U+FFFD in the name', body({ name: 'سا\uFFFDرة' }), json, 400, arForm.errorInvalid],
      [
        'a line separator in the name',
        body({ name: 'سارة\u2028Total' }),
        json,
        400,
        arForm.errorInvalid,
      ],
      [
        'a tag character in the name',
        body({ name: 'سارة\u{E0041}' }),
        json,
        400,
        arForm.errorInvalid,
      ],
      ['an unknown utm_ field', body({ utm_foo: 'x' }), json, 400, arForm.errorInvalid],
      ['an empty utm_source', body({ utm_source: '' }), json, 400, arForm.errorInvalid],
      ['a blank utm_medium', body({ utm_medium: ' ' }), json, 400, arForm.errorInvalid],
      [
        'a utm_campaign over 100 characters',
        body({ utm_campaign: 'c'.repeat(101) }),
        json,
        400,
        arForm.errorInvalid,
      ],
      [
        'a control character in utm_term',
        body({ utm_term: 'a\u0000b' }),
        json,
        400,
        arForm.errorInvalid,
      ],
      [
        'a bidi isolate in utm_content',
        body({ utm_content: '\u2066ad\u2069' }),
        json,
        400,
        arForm.errorInvalid,
      ],
      ['a number for utm_source', body({ utm_source: 7 }), json, 400, arForm.errorInvalid],
      ['a JSON array', '[]', json, 400, arForm.errorInvalid],
      ['malformed JSON', valid.slice(0, -1), json, 400, ar.errorBadRequest],
      ['an empty JSON body', '', json, 400, ar.errorBadRequest],
      ['text/plain', valid, 'text/plain', 415, ar.errorBadRequest],
      ['a form post', 'name=x&phone=966512345678', form, 415, ar.errorBadRequest],
      ['a body over 16 KiB', body({ notes: 'n'.repeat(16_400) }), json, 413, ar.errorBadRequest],
      ['a __proto__ key', poisoned('__proto__'), json, 400, ar.errorBadRequest],
      ['a constructor key', poisoned('constructor'), json, 400, ar.errorBadRequest],
    ])('%s: %i %s, nothing stored', async (_, sent, contentType, status, error) => {
      const { app, rows } = await buildTestApp(backend);
      const response = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': contentType },
        payload: sent,
      });
      expect(response.statusCode).toBe(status);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.json()).toEqual({ error });
      expect(await rows()).toHaveLength(0);
    });

    it('answers anything unexpected with 500 and the generic Arabic text, no details', async () => {
      const { app, services } = await buildTestApp(backend);
      await services.database.close();
      const response = await app.inject({ method: 'POST', url, payload });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: arForm.errorGeneric });
    });

    it('answers other methods on the route with a JSON 404', async () => {
      const { app } = await buildTestApp(backend);
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const response = await app.inject({ method, url });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ error: ar.errorBadRequest });
      }
    });
  });

  // registration-repository.test.ts shows the rule holding when the calls interleave; these go
  // through the whole HTTP pipeline.
  describe('the same phone with the same notes within 24 hours', () => {
    it("is a repeat: stored as sent, linked to its lead, answered 201 with the lead's id", async () => {
      const clock = manualClock();
      const { app, rows } = await buildTestApp(backend, {}, { now: clock.now });
      const post = (marketingId: string, name: string, email: string) =>
        app.inject({
          method: 'POST',
          url,
          payload: buildPayload({ ...values, name, email }, { marketingId }),
        });

      const first = await post('first', 'سارة', '');
      clock.advance(23 * hour);
      const second = await post('second', 'سارة أحمد', 'sara@example.com');

      expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
      expect(second.json()).toEqual(first.json());
      const { id } = first.json<{ id: string }>();
      const stored = await rows();
      expect(stored).toMatchObject([
        { id, marketing_id: 'first', name: 'سارة', email: null, repeat_of: null },
        { marketing_id: 'second', name: 'سارة أحمد', email: 'sara@example.com', repeat_of: id },
      ]);
      expect(stored[1]?.id).not.toBe(id);
    });

    it('counts the 24 hours from the lead, never from a repeat', async () => {
      const clock = manualClock();
      const { app, rows } = await buildTestApp(backend, {}, { now: clock.now });
      const post = async () =>
        (await app.inject({ method: 'POST', url, payload: buildPayload(values, {}) })).json<{
          id: string;
        }>().id;

      const first = await post();
      clock.advance(23 * hour);
      const repeat = await post();
      // 25 hours after the lead, 2 after its repeat: a new lead.
      clock.advance(2 * hour);
      const next = await post();

      expect(repeat).toBe(first);
      expect(next).not.toBe(first);
      expect(await rows()).toMatchObject([
        { id: first, repeat_of: null },
        { repeat_of: first },
        { id: next, repeat_of: null },
      ]);
    });

    it('makes a new row after 24 hours, or with other notes', async () => {
      const clock = manualClock();
      const { app, rows } = await buildTestApp(backend, {}, { now: clock.now });
      const post = (route: RouteAttribution) =>
        app.inject({ method: 'POST', url, payload: buildPayload(values, route) });

      const first = await post({});
      const otherPackage = await post({ packageName: 'classic_reco' });
      clock.advance(24 * hour);
      const nextDay = await post({});

      const ids = [first, otherPackage, nextDay].map(
        (response) => response.json<{ id: string }>().id,
      );
      expect(new Set(ids).size).toBe(3);
      expect(await rows()).toMatchObject(ids.map((id) => ({ id, repeat_of: null })));
    });

    it('is one lead and 19 repeats of it when 20 identical requests arrive at once', async () => {
      const { app, rows } = await buildTestApp(backend);
      const payload = buildPayload(values, { packageName: 'premium_reco', marketingId: '42' });
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => app.inject({ method: 'POST', url, payload })),
      );

      expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(201));
      const ids = new Set(responses.map((response) => response.json<{ id: string }>().id));
      expect(ids.size).toBe(1);
      const [id] = ids;
      const stored = await rows();
      expect(stored).toHaveLength(20);
      expect(stored.filter((row) => row.repeat_of === null).map((row) => row.id)).toEqual([id]);
      expect(stored.filter((row) => row.repeat_of === id)).toHaveLength(19);
    });
  });

  describe('the proof-of-work challenge (ALTCHA_HMAC_KEY set)', () => {
    const altchaEnv = { ALTCHA_HMAC_KEY: 'k'.repeat(32) };

    /** What the form does: fetch a challenge, solve it, send it with the sign-up. */
    async function solved(app: Awaited<ReturnType<typeof buildTestApp>>['app']) {
      const response = await app.inject({ url: '/api/altcha-challenge' });
      expect(response.statusCode).toBe(200);
      const challenge = response.json<Challenge>();
      const solution = await solveChallenge({ challenge, deriveKey });
      return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
    }
    const signUp = (app: Awaited<ReturnType<typeof buildTestApp>>['app'], altcha?: string) =>
      app.inject({ method: 'POST', url, payload: { ...buildPayload(values, {}), altcha } });

    it('stores a sign-up that carries a solved challenge, and refuses it spent', async () => {
      const { app, rows } = await buildTestApp(backend, altchaEnv);
      const page = await app.inject({ url: '/register/register-client' });
      expect(page.body).toContain(`<meta name="${proofOfWorkMeta}" content="on">`);
      const altcha = await solved(app);
      expect((await signUp(app, altcha)).statusCode).toBe(201);
      const again = await signUp(app, altcha);
      expect(again.statusCode).toBe(400);
      expect(again.json()).toEqual({ error: arForm.errorChallenge });
      expect(await rows()).toHaveLength(1);
    });

    it('stores one of two sign-ups sent at once with one challenge, refusing the other', async () => {
      const { app, rows } = await buildTestApp(backend, altchaEnv);
      const altcha = await solved(app);
      // At once: both reach the same group commit, where the challenge is spent.
      const answers = await Promise.all([signUp(app, altcha), signUp(app, altcha)]);
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 400]);
      expect(answers.find((answer) => answer.statusCode === 400)?.json()).toEqual({
        error: arForm.errorChallenge,
      });
      expect(await rows()).toHaveLength(1);
    });

    it('refuses a sign-up without a solution, or with a forged one, storing nothing', async () => {
      const { app, rows } = await buildTestApp(backend, altchaEnv);
      const altcha = await solved(app);
      const payload = JSON.parse(Buffer.from(altcha, 'base64').toString()) as {
        solution: { derivedKey: string };
      };
      payload.solution.derivedKey = '0'.repeat(payload.solution.derivedKey.length);
      const forged = Buffer.from(JSON.stringify(payload)).toString('base64');
      for (const sent of [undefined, 'bm90IGpzb24=', forged]) {
        const response = await signUp(app, sent);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({ error: arForm.errorChallenge });
      }
      expect(await rows()).toHaveLength(0);
    });

    it('spends a solved challenge for every instance on the database, without Redis', async () => {
      const first = await buildTestApp(backend, altchaEnv, { config: { redisUrl: undefined } });
      const second = await buildTestApp(backend, altchaEnv, {
        config: { redisUrl: undefined },
        rewriteDatabaseUrl: () => first.databaseUrl,
      });
      const altcha = await solved(first.app);
      expect((await signUp(first.app, altcha)).statusCode).toBe(201);
      const again = await signUp(second.app, altcha);
      expect(again.statusCode).toBe(400);
      expect(again.json()).toEqual({ error: arForm.errorChallenge });
      expect(await first.rows()).toHaveLength(1);
    });

    it('refuses a malformed payload with the Arabic challenge error, never a 500', async () => {
      const { app, rows } = await buildTestApp(backend, altchaEnv);
      const malformed = [
        { challenge: { signature: 'a' }, solution: { counter: 1 } },
        { challenge: { signature: 'a', parameters: 5 }, solution: null },
        { challenge: { signature: 'a', parameters: { expiresAt: 'soon' } }, solution: {} },
        null,
        [],
      ];
      for (const payload of malformed) {
        const altcha = Buffer.from(JSON.stringify(payload)).toString('base64');
        const response = await signUp(app, altcha);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({ error: arForm.errorChallenge });
      }
      expect(await rows()).toHaveLength(0);
    });

    it('is off without the key: no challenge route, sign-ups stored as ever', async () => {
      const { app, rows } = await buildTestApp(backend);
      const page = await app.inject({ url: '/register/register-client' });
      expect(page.body).not.toContain(proofOfWorkMeta);
      expect((await app.inject({ url: '/api/altcha-challenge' })).statusCode).toBe(404);
      expect((await signUp(app)).statusCode).toBe(201);
      expect(await rows()).toHaveLength(1);
    });
  });

  describe('the rate limit', () => {
    it('answers 429 with Retry-After and the Arabic text once an IP passes the limit', async () => {
      const { app, rows } = await buildTestApp(backend, { RATE_LIMIT_PER_MINUTE: '3' });
      const post = (phone: string) =>
        app.inject({ method: 'POST', url, payload: buildPayload({ ...values, phone }, {}) });

      const statuses = [];
      for (const phone of ['966500000001', '966500000002', '966500000003']) {
        statuses.push((await post(phone)).statusCode);
      }
      const refused = await post('966500000004');

      expect(statuses).toEqual([201, 201, 201]);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.json()).toEqual({ error: ar.errorTooManyRequests });
      expect(await rows()).toHaveLength(3);
    });

    it('counts each client IP on its own', async () => {
      const { app } = await buildTestApp(backend, { RATE_LIMIT_PER_MINUTE: '1' });
      const post = (remoteAddress: string, phone: string) =>
        app.inject({
          method: 'POST',
          url,
          remoteAddress,
          payload: buildPayload({ ...values, phone }, {}),
        });

      expect((await post('198.51.100.1', '966500000001')).statusCode).toBe(201);
      expect((await post('198.51.100.2', '966500000002')).statusCode).toBe(201);
      expect((await post('198.51.100.1', '966500000003')).statusCode).toBe(429);
    });

    it('counts an IPv6 /48 as one client with a larger share, however many /64s it uses', async () => {
      const { app } = await buildTestApp(backend, { RATE_LIMIT_PER_MINUTE: '1' });
      let phones = 0;
      const post = (remoteAddress: string) =>
        app.inject({
          method: 'POST',
          url,
          remoteAddress,
          payload: buildPayload(
            { ...values, phone: `9665000000${String((phones += 1)).padStart(2, '0')}` },
            {},
          ),
        });

      const statuses = [];
      for (let subnet = 1; subnet <= ipv6SitesShare + 1; subnet += 1) {
        statuses.push((await post(`2001:db8:1:${subnet}::1`)).statusCode);
      }
      expect(statuses).toEqual([...Array(ipv6SitesShare).fill(201), 429]);
      expect((await post('2001:db8:2:1::1')).statusCode).toBe(201);
    });

    it('ignores X-Forwarded-For unless TRUST_PROXY says a proxy sets it', async () => {
      const send = (
        app: Awaited<ReturnType<typeof buildTestApp>>['app'],
        ip: string,
        phone: string,
      ) =>
        app.inject({
          method: 'POST',
          url,
          headers: { 'x-forwarded-for': ip },
          payload: buildPayload({ ...values, phone }, {}),
        });

      const direct = await buildTestApp(backend, { RATE_LIMIT_PER_MINUTE: '1' });
      expect((await send(direct.app, '203.0.113.1', '966500000001')).statusCode).toBe(201);
      expect((await send(direct.app, '203.0.113.2', '966500000002')).statusCode).toBe(429);

      const proxied = await buildTestApp(backend, { RATE_LIMIT_PER_MINUTE: '1', TRUST_PROXY: '1' });
      expect((await send(proxied.app, '203.0.113.1', '966500000001')).statusCode).toBe(201);
      expect((await send(proxied.app, '203.0.113.2', '966500000002')).statusCode).toBe(201);
      expect((await send(proxied.app, '203.0.113.1', '966500000003')).statusCode).toBe(429);
    });
  });
});
