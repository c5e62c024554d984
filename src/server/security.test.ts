import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ar } from '../domain/catalogue/shared';
import { loadConfig } from './env';
import { buildTestApp, describeOnBackends, sqliteBackend } from '../../testing/server-test-helpers';

// The findings of the security review (docs/security.md), each reproduced as the attack.

/** Sends `request` as it is on a socket of its own; resolves with the whole answer. */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parseAnswer(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

async function listening(env: Record<string, string> = {}) {
  const built = await buildTestApp(sqliteBackend, env);
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  const address = built.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  return { ...built, port: address.port };
}

describe('refusals before routing (finding 7)', () => {
  it.each([
    ['a malformed URL', 'GET /register/x%ff HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', 400],
    ['a 16 KB URL', `GET /register/${'a'.repeat(16 * 1024)} HTTP/1.1\r\nHost: a\r\n\r\n`, 431],
    [
      'Content-Length with Transfer-Encoding',
      'POST /api/external-register HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n' +
        'Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
    ['no Host header', 'GET /register/register-client HTTP/1.1\r\nConnection: close\r\n\r\n', 400],
  ])(
    '%s is the Arabic JSON with the security headers, the URL not echoed',
    async (_, request, status) => {
      const { port, app } = await listening();
      const answer = parseAnswer(await rawRequest(port, request));
      expect(answer.status).toBe(status);
      expect(JSON.parse(answer.body)).toEqual({ error: ar.errorBadRequest });
      expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['permissions-policy']).toContain('camera=()');
      expect(answer.body).not.toContain('register/');
      await app.close();
    },
  );
});

describeOnBackends('headers on $name (findings 12 and 13)', (backend) => {
  it('keeps camera, microphone, location and payment off, on pages and the API', async () => {
    const { app } = await buildTestApp(backend);
    for (const url of ['/register/register-client', '/api/health']) {
      const response = await app.inject({ url });
      expect(response.headers['permissions-policy']).toBe(
        'camera=(), microphone=(), geolocation=(), payment=()',
      );
    }
  });

  it('lets no browser or proxy keep an API answer, and pages stay revalidated', async () => {
    const { app } = await buildTestApp(backend);
    expect((await app.inject({ url: '/api/health' })).headers['cache-control']).toBe('no-store');
    const refused = await app.inject({
      method: 'POST',
      url: '/api/external-register',
      payload: {},
    });
    expect(refused.headers['cache-control']).toBe('no-store');
    const page = await app.inject({ url: '/register/register-client' });
    expect(page.headers['cache-control']).toBe('no-cache');
  });

  it('sends HSTS over HTTPS only, with subdomains when asked', async () => {
    const plain = await buildTestApp(backend, { TRUST_PROXY: '1' });
    const overHttp = await plain.app.inject({ url: '/register/register-client' });
    expect(overHttp.headers['strict-transport-security']).toBeUndefined();
    const overHttps = await plain.app.inject({
      url: '/register/register-client',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(overHttps.headers['strict-transport-security']).toBe('max-age=31536000');

    const wide = await buildTestApp(backend, { TRUST_PROXY: '1', HSTS_INCLUDE_SUBDOMAINS: 'true' });
    const response = await wide.app.inject({
      url: '/api/health',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(response.headers['strict-transport-security']).toBe(
      'max-age=31536000; includeSubDomains',
    );
  });

  it('tells only an allowed origin that credentials are allowed', async () => {
    const { app } = await buildTestApp(backend, { CORS_ORIGINS: 'https://app.example.com' });
    for (const origin of ['https://evil.example', 'null']) {
      const response = await app.inject({ url: '/api/health', headers: { origin } });
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    }
    const allowed = await app.inject({
      url: '/api/health',
      headers: { origin: 'https://app.example.com' },
    });
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
  });

  it('lets the pages call the API on the origin VITE_API_BASE_URL names, and no other', async () => {
    const same = await buildTestApp(backend);
    const samePolicy = (await same.app.inject({ url: '/register/register-client' })).headers[
      'content-security-policy'
    ];
    expect(samePolicy).toContain("connect-src 'self';");

    const other = await buildTestApp(backend, {
      VITE_API_BASE_URL: 'https://api.example.com/v1',
    });
    const policy = (await other.app.inject({ url: '/register/register-client' })).headers[
      'content-security-policy'
    ];
    expect(policy).toContain("connect-src 'self' https://api.example.com;");
  });
});

describe('link previews and the Host header (finding 5)', () => {
  it('refuses to start in production without PUBLIC_URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/PUBLIC_URL/);
    expect(
      loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://example.com' }).publicUrl,
    ).toBe('https://example.com');
  });

  it('never names a scheme other than http or https, whatever the proxy forwards', async () => {
    const { app } = await buildTestApp(sqliteBackend, { TRUST_PROXY: '1' });
    const response = await app.inject({
      url: '/register/register-client',
      headers: { 'x-forwarded-proto': 'javascript', host: 'example.com' },
    });
    expect(response.body).toContain('content="http://example.com/register/register-client"');
    expect(response.body).not.toContain('javascript:');
  });
});

describe('proxy trust (finding 14)', () => {
  it('warns at start when TRUST_PROXY=true believes any client', async () => {
    const { log } = await buildTestApp(sqliteBackend, { TRUST_PROXY: 'true' });
    expect(log()).toContain('TRUST_PROXY=true believes any X-Forwarded-For');
  });

  it('warns once when X-Forwarded-For arrives while no proxy is trusted', async () => {
    const { app, log } = await buildTestApp(sqliteBackend);
    for (let i = 0; i < 3; i += 1) {
      await app.inject({ url: '/api/health', headers: { 'x-forwarded-for': '203.0.113.9' } });
    }
    expect(log().match(/TRUST_PROXY is off/g)).toHaveLength(1);
  });
});

describe('the database files (finding 8)', () => {
  it('are readable by the server alone', async () => {
    const { app, databaseUrl } = await buildTestApp(sqliteBackend);
    await app.inject({ url: '/api/health' });
    const file = databaseUrl.slice('sqlite:'.length);
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(dirname(file))).toBe(0o700);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path)).toBe(0o600);
  });
});
