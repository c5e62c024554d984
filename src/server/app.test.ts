import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildPayload } from '../domain/registration';
import { ar } from '../domain/catalogue/shared';
import { buildTestApp, describeOnBackends } from '../../testing/server-test-helpers';

const name = 'سارة المطيري';
const phone = '966512345678';
const email = 'sara.private@example.com';

describeOnBackends('on $name', (backend) => {
  // Every answer's headers are in http-matrix.test.ts; this is what the CSP is for.
  describe('the content security policy', () => {
    it("allow the page's inline script by its hash, and no other inline script", async () => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({ url: '/register/register-client' });
      const inline = /<script data-src="[^"]+">([^<]+)<\/script>/.exec(response.body)?.[1];
      expect(inline).toBeDefined();
      const hash = createHash('sha256')
        .update(inline ?? '')
        .digest('base64');
      const policy = String(response.headers['content-security-policy']);
      const scriptSrc = /(?:^|;)script-src ([^;]+)/.exec(policy)?.[1]?.split(' ');
      expect(scriptSrc).toEqual(["'self'", `'sha256-${hash}'`]);
      expect(policy).not.toContain('unsafe-inline');
    });
  });

  describe('CORS', () => {
    const allowed = 'https://app.example.com';

    it('lets a listed origin call the API with credentials', async () => {
      const { app } = await buildTestApp(backend, {
        CORS_ORIGINS: `${allowed}, https://other.example`,
      });
      const response = await app.inject({
        method: 'POST',
        url: '/api/external-register',
        headers: { origin: allowed },
        payload: buildPayload({ name, email: '', phone }, {}),
      });
      expect(response.statusCode).toBe(201);
      expect(response.headers['access-control-allow-origin']).toBe(allowed);
      expect(response.headers['access-control-allow-credentials']).toBe('true');
      expect(response.headers.vary).toContain('Origin');
    });

    it('answers the preflight of a listed origin', async () => {
      const { app } = await buildTestApp(backend, { CORS_ORIGINS: allowed });
      const response = await app.inject({
        method: 'OPTIONS',
        url: '/api/external-register',
        headers: {
          origin: allowed,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(response.statusCode).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(allowed);
      expect(response.headers['access-control-allow-methods']).toBe('POST');
    });

    it.each([
      ['an unlisted origin', 'https://evil.example'],
      ['the null origin', 'null'],
      ['a look-alike suffix', 'https://app.example.com.evil.example'],
      ['a look-alike prefix', 'https://evilapp.example.com'],
      ['another scheme', 'http://app.example.com'],
    ])('never allows %s', async (_, origin) => {
      const { app } = await buildTestApp(backend, { CORS_ORIGINS: allowed });
      for (const method of ['POST', 'OPTIONS'] as const) {
        const response = await app.inject({
          method,
          url: '/api/external-register',
          headers: { origin, 'access-control-request-method': 'POST' },
          payload: method === 'POST' ? buildPayload({ name, email: '', phone }, {}) : undefined,
        });
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
        expect(response.headers.vary).toContain('Origin');
      }
    });

    it('allows no origin at all by default', async () => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({
        url: '/api/health',
        headers: { origin: 'http://127.0.0.1:3000' },
      });
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('GET /api/health and GET /api/ready', () => {
    it('stay alive once the database is gone, and are no longer ready', async () => {
      const { app, services } = await buildTestApp(backend);
      const healthy = await app.inject({ url: '/api/health' });
      expect([healthy.statusCode, healthy.json()]).toEqual([200, { status: 'ok' }]);
      expect((await app.inject({ url: '/api/ready' })).statusCode).toBe(200);

      await services.database.close();
      const alive = await app.inject({ url: '/api/health' });
      expect([alive.statusCode, alive.json()]).toEqual([200, { status: 'ok' }]);
      const down = await app.inject({ url: '/api/ready' });
      expect([down.statusCode, down.json()]).toEqual([503, { status: 'unavailable' }]);
    });
  });

  describe('the log', () => {
    it('never holds a name, phone number or e-mail, whatever the request', async () => {
      const { app, services, log } = await buildTestApp(backend, { LOG_LEVEL: 'trace' });
      const valid = buildPayload({ name, email, phone }, { marketingId: '42' });
      const post = (payload: string, contentType = 'application/json') =>
        app.inject({
          method: 'POST',
          url: '/api/external-register',
          headers: { 'content-type': contentType },
          payload,
        });

      const statuses = [
        await post(JSON.stringify(valid)),
        await post(JSON.stringify(valid)),
        await post(JSON.stringify({ ...valid, phone: `${phone}0` })),
        await post(JSON.stringify({ ...valid, email: `${email}@` })),
        await post(JSON.stringify({ ...valid, extra: name })),
        await post(`{"name":"${name}","phone":"${phone}","email":"${email}",`),
        await post(JSON.stringify(valid), 'text/plain'),
        await post(JSON.stringify({ ...valid, notes: 'x'.repeat(17_000) })),
        await post(`{"name":"${name}","phone":"${phone}","__proto__":{"admin":true}}`),
      ].map((response) => response.statusCode);
      await services.database.close();
      statuses.push((await post(JSON.stringify({ ...valid, phone: '966500000000' }))).statusCode);

      expect(statuses).toEqual([201, 201, 400, 400, 400, 400, 415, 413, 400, 500]);
      const text = log();
      expect(text).toContain('registration refused: invalid fields');
      expect(text).toContain('unexpected error');
      for (const secret of [name, phone, '966500000000', email, `${phone}0`]) {
        expect(text).not.toContain(secret);
      }
    });
  });

  describe('unknown paths', () => {
    it.each(['/elsewhere', '/api/nowhere', '/favicon.ico'])('%s answers 404 JSON', async (url) => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: ar.errorBadRequest });
    });
  });
});
