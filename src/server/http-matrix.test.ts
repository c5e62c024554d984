import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { ar } from '../domain/catalogue/shared';
import { buildPayload } from '../domain/registration';
import { retryAfterSeconds } from './server-limits';
import {
  buildTestApp,
  fixtureInlineScriptHash,
  describeOnBackends,
  type TestBackend,
} from '../../testing/server-test-helpers';

// The HTTP surface of the API as tables: one row per case, each table read top to bottom.
// app.test.ts and registration-routes.test.ts hold the first cases of several of these
// (a listed origin, text/plain, 16 KiB + 400 bytes, GET/PUT/DELETE, one forged address);
// the rows here are the rest of the matrix.

const url = '/api/external-register';
const bodyLimit = 16 * 1024;
let phones = 0;
/** A valid sign-up with a phone of its own, so that no two rows meet the 24-hour rule. */
const signUp = () =>
  buildPayload(
    { name: 'سارة المطيري', email: '', phone: `9665${String(10_000_000 + (phones += 1))}` },
    { packageName: 'premium_reco', marketingId: '42' },
  );

type App = Awaited<ReturnType<typeof buildTestApp>>['app'];

describeOnBackends('the HTTP matrix on $name', (backend: TestBackend) => {
  describe('content types of POST /api/external-register', () => {
    const multipart =
      '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nسارة\r\n' +
      '--b\r\nContent-Disposition: form-data; name="phone"\r\n\r\n966512345678\r\n--b--\r\n';
    it.each<[string, string | undefined, number, (json: string) => string]>([
      ['application/json', 'application/json', 201, (json) => json],
      ['JSON with a charset', 'application/json; charset=utf-8', 201, (json) => json],
      ['JSON, written in capitals', 'Application/JSON;charset=UTF-8', 201, (json) => json],
      // A "simple" request that a foreign page may send without a preflight: refusing it
      // is what keeps a cross-site form from posting sign-ups.
      ['text/plain holding JSON', 'text/plain', 415, (json) => json],
      ['text/plain with a charset', 'text/plain; charset=utf-8', 415, (json) => json],
      ['a form post', 'application/x-www-form-urlencoded', 415, () => 'name=x&phone=966512345678'],
      ['multipart/form-data', 'multipart/form-data; boundary=b', 415, () => multipart],
      ['application/xml', 'application/xml', 415, () => '<name>x</name>'],
      ['text/json', 'text/json', 415, (json) => json],
      ['a list of types', 'application/json, text/plain', 415, (json) => json],
      ['no content type', undefined, 415, (json) => json],
    ])('%s: %s -> %i', async (_, contentType, status, body) => {
      const { app, rows } = await buildTestApp(backend);
      const response = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': contentType },
        payload: body(JSON.stringify(signUp())),
      });
      expect(response.statusCode).toBe(status);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      if (status === 201) {
        expect(await rows()).toHaveLength(1);
      } else {
        expect(response.json()).toEqual({ error: ar.errorBadRequest });
        expect(await rows()).toHaveLength(0);
      }
    });
  });

  describe('body size around the 16 KiB limit', () => {
    /** A valid sign-up padded with JSON whitespace to exactly `bytes` bytes. */
    const padded = (bytes: number) => {
      const json = JSON.stringify(signUp());
      return `${json.slice(0, -1)}${' '.repeat(bytes - Buffer.byteLength(json))}}`;
    };
    // Arabic letters are two bytes in UTF-8: under the limit in characters, over it in bytes.
    const arabicOver = () => {
      const json = JSON.stringify({ ...signUp(), notes: '' });
      const letters = Math.ceil((bodyLimit + 1 - Buffer.byteLength(json)) / 2);
      return json.replace('"notes":""', `"notes":"${'ن'.repeat(letters)}"`);
    };
    it.each<[string, () => string, number]>([
      ['the limit - 1 byte, a valid sign-up', () => padded(bodyLimit - 1), 201],
      ['exactly the limit, a valid sign-up', () => padded(bodyLimit), 201],
      ['the limit + 1 byte', () => padded(bodyLimit + 1), 413],
      ['under the limit in characters, over it in UTF-8 bytes', arabicOver, 413],
      ['1 MiB', () => padded(1024 * 1024), 413],
    ])('%s -> %i', async (_, body, status) => {
      const { app, rows } = await buildTestApp(backend);
      const payload = body();
      const response = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode).toBe(status);
      expect(await rows()).toHaveLength(status === 201 ? 1 : 0);
      if (status === 413) {
        expect(Buffer.byteLength(payload)).toBeGreaterThan(bodyLimit);
        expect(response.json()).toEqual({ error: ar.errorBadRequest });
      }
    });
  });

  describe('methods other than POST on the API route, each with a valid sign-up body', () => {
    it.each(['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'TRACE'] as const)(
      '%s -> 404 JSON, nothing stored',
      async (method) => {
        const { app, rows } = await buildTestApp(backend);
        const bodiless = method === 'GET' || method === 'HEAD';
        const response = await app.inject({
          method,
          url,
          payload: bodiless ? undefined : signUp(),
        });
        expect(response.statusCode).toBe(404);
        if (method !== 'HEAD') expect(response.json()).toEqual({ error: ar.errorBadRequest });
        expect(await rows()).toHaveLength(0);
      },
    );

    it('OPTIONS that is no preflight (no Origin) -> 400 from the CORS plugin, no CORS grant', async () => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({ method: 'OPTIONS', url });
      expect(response.statusCode).toBe(400);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('CORS, with CORS_ORIGINS=https://example.com,https://partner.example.org:8443', () => {
    const allowedOrigins = 'https://example.com,https://partner.example.org:8443';
    it.each<[string, string, boolean]>([
      ['the first listed origin', 'https://example.com', true],
      ['the second listed origin, port and all', 'https://partner.example.org:8443', true],
      ['an unlisted origin', 'https://evil.test', false],
      ['the null origin (sandboxed frame, file:)', 'null', false],
      ['a look-alike suffix domain', 'https://example.com.evil.test', false],
      ['a look-alike prefix', 'https://evilexample.com', false],
      ['a subdomain', 'https://www.example.com', false],
      ['the http variant', 'http://example.com', false],
      ['another port', 'https://example.com:8443', false],
      ['a trailing slash', 'https://example.com/', false],
      ['capitals', 'HTTPS://EXAMPLE.COM', false],
      ['a wildcard', '*', false],
    ])('%s (%s): allowed %s', async (_, origin, allowed) => {
      const { app } = await buildTestApp(backend, { CORS_ORIGINS: allowedOrigins });
      const preflight = await app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      const post = await app.inject({
        method: 'POST',
        url,
        headers: { origin },
        payload: signUp(),
      });

      expect(preflight.statusCode).toBe(204);
      // The server stores the sign-up either way: CORS only tells the browser whether the
      // page may read the answer (and a JSON POST from a foreign page needs the preflight).
      expect(post.statusCode).toBe(201);
      for (const response of [preflight, post]) {
        const granted = response.headers['access-control-allow-origin'];
        expect(granted).toBe(allowed ? origin : undefined);
        expect(response.headers.vary).toContain('Origin');
        // Never '*', never an unlisted origin echoed back in any header.
        for (const [name, value] of Object.entries(response.headers)) {
          expect(String(value), name).not.toBe('*');
          if (!allowed && origin !== 'null') expect(String(value), name).not.toContain(origin);
        }
      }
      if (allowed) {
        expect(preflight.headers['access-control-allow-methods']).toBe('POST');
        expect(post.headers['access-control-allow-credentials']).toBe('true');
      }
    });
  });

  describe('X-Forwarded-For and the rate-limit key (2 sign-ups a minute per key)', () => {
    type Sent = { remote?: string; forwarded?: string };
    const proxy = '192.0.2.10';
    it.each<[string, string | undefined, Sent[], number[]]>([
      [
        'no TRUST_PROXY: a new forged address on every request changes nothing',
        undefined,
        [{ forwarded: '203.0.113.1' }, { forwarded: '203.0.113.2' }, { forwarded: '203.0.113.3' }],
        [201, 201, 429],
      ],
      [
        'no TRUST_PROXY: forged chains change nothing either',
        undefined,
        [
          { forwarded: '203.0.113.1, 198.51.100.1' },
          { forwarded: '10.0.0.1, 203.0.113.2' },
          { forwarded: 'unknown' },
        ],
        [201, 201, 429],
      ],
      [
        'TRUST_PROXY=1: the key is the address the proxy appended, not the forged ones before it',
        '1',
        [
          { forwarded: '203.0.113.1, 198.51.100.7' },
          { forwarded: '203.0.113.2, 198.51.100.7' },
          { forwarded: '203.0.113.3, 198.51.100.7' },
        ],
        [201, 201, 429],
      ],
      [
        'TRUST_PROXY=1: two clients behind the proxy count apart',
        '1',
        [
          { forwarded: '198.51.100.7' },
          { forwarded: '198.51.100.7' },
          { forwarded: '198.51.100.8' },
          { forwarded: '198.51.100.7' },
        ],
        [201, 201, 201, 429],
      ],
      [
        "TRUST_PROXY=<the proxy's address>: a client that bypasses the proxy is keyed on itself",
        proxy,
        [
          { remote: '203.0.113.50', forwarded: '198.51.100.1' },
          { remote: '203.0.113.50', forwarded: '198.51.100.2' },
          { remote: '203.0.113.50', forwarded: '198.51.100.3' },
        ],
        [201, 201, 429],
      ],
      [
        "TRUST_PROXY=<the proxy's address>: through the proxy, the client it names is the key",
        proxy,
        [
          { remote: proxy, forwarded: '198.51.100.1' },
          { remote: proxy, forwarded: '198.51.100.2' },
          { remote: proxy, forwarded: '198.51.100.1' },
          { remote: proxy, forwarded: '198.51.100.1' },
        ],
        [201, 201, 201, 429],
      ],
      [
        'TRUST_PROXY=true believes the left-most address, which the client writes: only for a proxy that overwrites the header',
        'true',
        [{ forwarded: '203.0.113.1' }, { forwarded: '203.0.113.2' }, { forwarded: '203.0.113.3' }],
        [201, 201, 201],
      ],
    ])('%s', async (_, trustProxy, requests, statuses) => {
      const { app } = await buildTestApp(backend, {
        RATE_LIMIT_PER_MINUTE: '2',
        ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }),
      });
      const seen = [];
      for (const { remote, forwarded } of requests) {
        const response = await app.inject({
          method: 'POST',
          url,
          remoteAddress: remote,
          headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
          payload: signUp(),
        });
        seen.push(response.statusCode);
      }
      expect(seen).toEqual(statuses);
    });
  });

  describe('security headers on pages and API answers', () => {
    const csp =
      `default-src 'self';script-src 'self' ${fixtureInlineScriptHash};style-src 'self';` +
      "img-src 'self' data:;connect-src 'self';object-src 'none';base-uri 'none';" +
      "frame-ancestors 'none';" +
      "form-action 'self'";
    const limited = { RATE_LIMIT_PER_MINUTE: '1' };
    it.each<
      [
        string,
        Record<string, string>,
        (app: App) => Promise<{ statusCode: number; headers: Record<string, unknown> }>,
        number,
      ]
    >([
      ['a rendered page', {}, (app) => app.inject({ url: '/register/register-client' }), 200],
      ['an unknown page', {}, (app) => app.inject({ url: '/register/nowhere' }), 404],
      ['a hashed asset', {}, (app) => app.inject({ url: '/register/assets/app-abc123.js' }), 200],
      ['the redirect at /', {}, (app) => app.inject({ url: '/' }), 302],
      ['the health check', {}, (app) => app.inject({ url: '/api/health' }), 200],
      [
        'a stored sign-up',
        {},
        (app) => app.inject({ method: 'POST', url, payload: signUp() }),
        201,
      ],
      [
        'an invalid sign-up',
        {},
        (app) => app.inject({ method: 'POST', url, payload: { ...signUp(), phone: '05' } }),
        400,
      ],
      [
        'a wrong content type',
        {},
        (app) =>
          app.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'text/plain' },
            payload: 'x',
          }),
        415,
      ],
      [
        'a body over the limit',
        {},
        (app) =>
          app.inject({
            method: 'POST',
            url,
            payload: { ...signUp(), notes: 'n'.repeat(bodyLimit) },
          }),
        413,
      ],
      [
        'the rate limit',
        limited,
        async (app) => {
          await app.inject({ method: 'POST', url, payload: signUp() });
          return app.inject({ method: 'POST', url, payload: signUp() });
        },
        429,
      ],
      [
        'a CORS preflight',
        { CORS_ORIGINS: 'https://example.com' },
        (app) =>
          app.inject({
            method: 'OPTIONS',
            url,
            headers: { origin: 'https://example.com', 'access-control-request-method': 'POST' },
          }),
        204,
      ],
      ['an unknown API path', {}, (app) => app.inject({ url: '/api/nowhere' }), 404],
    ])('%s (%#)', async (_, env, request, status) => {
      const { app } = await buildTestApp(backend, env);
      const response = await request(app);
      expect(response.statusCode).toBe(status);
      expect(response.headers['content-security-policy']).toBe(csp);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-powered-by']).toBeUndefined();
      expect(response.headers.server).toBeUndefined();
    });
  });

  describe('load shedding (@fastify/under-pressure)', () => {
    /** Blocks the event loop in slices until the sampler reports pressure (at most 5 s). */
    async function saturate(app: App) {
      const deadline = Date.now() + 5_000;
      while (!app.isUnderPressure() && Date.now() < deadline) {
        const until = Date.now() + 400;
        while (Date.now() < until) {
          // Busy: the event loop lags, as under a burst.
        }
        await yieldToLoop();
      }
    }

    it('answers 503 with Retry-After and the Arabic text under pressure, then serves again', async () => {
      const { app, rows } = await buildTestApp(backend, {}, { maxEventLoopDelay: 200 });
      await saturate(app);
      expect(app.isUnderPressure()).toBe(true);
      const shed = await app.inject({ method: 'POST', url, payload: signUp() });
      expect(shed.statusCode).toBe(503);
      expect(shed.headers['retry-after']).toBe(String(retryAfterSeconds));
      expect(shed.json()).toEqual({ error: ar.errorTooManyRequests });
      expect(shed.headers['x-content-type-options']).toBe('nosniff');
      expect(await rows()).toHaveLength(0);

      // Once the lag has passed (the next samples), sign-ups are served again.
      await vi.waitFor(() => expect(app.isUnderPressure()).toBe(false), { timeout: 5_000 });
      const served = await app.inject({ method: 'POST', url, payload: signUp() });
      expect(served.statusCode).toBe(201);
    });
  });
});
