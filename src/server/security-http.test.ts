import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { arForm } from '../domain/catalogue/form';
import { ar } from '../domain/catalogue/shared';
import { trapField } from '../domain/form-fields';
import { buildPayload } from '../domain/registration';
import {
  buildCommand,
  testBuildDir,
  nodeArgsFor,
  startServerProcess,
  type ServerProcess,
} from '../../testing/server-process';
import {
  createTestDatabase,
  describeOnBackends,
  testRedisUrlWithPrefix,
  type TestDatabase,
} from '../../testing/server-test-helpers';

// The security review's attacks (docs/security.md), sent over HTTP to the built server
// (dist/server/main.js, as `npm start` runs it) on each database; the in-process tests beside
// each module show the details. Its own Vitest project (`built`), run by `npm test` after the
// browser tests, whose build it uses; alone, it builds one when there is none.

const run = promisify(execFile);
const distDir = testBuildDir;
const browser = 'Mozilla/5.0 (Linux; Android 14) Chrome/126.0 Mobile';

beforeAll(async () => {
  if (!existsSync(join(distDir, 'server', 'main.js'))) {
    await run('sh', ['-c', buildCommand(distDir)]);
  }
}, 180_000);

describeOnBackends('the built server on $name', (backend) => {
  let server: ServerProcess;
  let database: TestDatabase;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tasjeel-security-'));
    database = await createTestDatabase(backend.database);
    server = await startServerProcess({
      entry: join(distDir, 'server', 'main.js'),
      env: {
        DATABASE_URL: database.url,
        REDIS_URL: backend.redis ? testRedisUrlWithPrefix() : undefined,
        DIST_DIR: distDir,
        // Each request names its client, as a proxy in front would.
        TRUST_PROXY: '1',
        LOAD_SHED_DELAY_MS: '0',
        LOG_LEVEL: 'warn',
        PUBLIC_URL: undefined,
        NODE_ENV: undefined,
        ALTCHA_HMAC_KEY: undefined,
      },
      logFile: join(dir, 'server.log'),
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const signUp = (body: object, client = '198.51.100.1') =>
    fetch(`${server.origin}/api/external-register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
      body: JSON.stringify(body),
    });

  it('1: shows no sentence typed as a package, on the page or in its preview', async () => {
    const sentence = 'لتفعيل الاشتراك حوّل 100 ريال إلى SA0380000000608010167519';
    const response = await fetch(
      `${server.origin}/register/register-client/${encodeURIComponent(sentence)}/42`,
    );
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('حوّل');
  });

  it('2, 4: counts real visits once each, whatever a NUL id or a reload does', async () => {
    const visit = (path: string, client: string) =>
      fetch(`${server.origin}${path}`, {
        headers: { 'user-agent': browser, 'x-forwarded-for': client },
      }).then((response) => response.arrayBuffer());
    await visit('/register/marketer/%00', '198.51.100.99');
    for (let i = 0; i < 20; i += 1) await visit('/register/marketer/7', `198.51.100.${i}`);
    await visit('/register/marketer/7', '198.51.100.0');

    // The counter writes once a second; the built report reads what is stored.
    const report = join(distDir, 'server', 'report.js');
    let line: string | undefined;
    for (let tries = 0; tries < 50 && line !== '7,,20,20,0,0,0.0,0,0,0,0,,0,0'; tries += 1) {
      await new Promise((done) => setTimeout(done, 200));
      const { stdout } = await run(
        process.execPath,
        [...nodeArgsFor(report), report, '--format', 'csv'],
        { env: { ...process.env, DATABASE_URL: database.url } },
      );
      line = stdout.split('\r\n').find((row) => row.startsWith('7,'));
    }
    expect(line).toBe('7,,20,20,0,0,0.0,0,0,0,0,,0,0');
  }, 30_000);

  it.each([
    ['4: notes the pages never write', { notes: 'اتصل على 0500000000 للعرض' }],
    ['10: a bidi override in the name', { name: 'سارة\u202Etxt.exe' }],
    ['10: a name of zero-width characters', { name: '\u200B\u200C' }],
  ])('%s: 400, the Arabic error, nothing stored', async (_, change) => {
    const before = (await database.rows()).length;
    const response = await signUp({
      ...buildPayload({ name: 'سارة', email: '', phone: '966512345678' }, {}),
      ...change,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: arForm.errorInvalid });
    expect(await database.rows()).toHaveLength(before);
  });

  it('4: answers a filled honeypot 201 and stores nothing; a person is stored', async () => {
    const before = (await database.rows()).length;
    const payload = buildPayload({ name: 'سارة', email: '', phone: '966512345670' }, {});
    const bot = await signUp({ ...payload, [trapField]: 'https://spam.example' });
    expect(bot.status).toBe(201);
    expect(await database.rows()).toHaveLength(before);
    expect((await signUp(payload)).status).toBe(201);
    expect(await database.rows()).toHaveLength(before + 1);
  });

  it('5: never names a scheme other than http or https in a preview', async () => {
    const response = await fetch(`${server.origin}/register/register-client`, {
      headers: { 'x-forwarded-proto': 'javascript:alert(1)//' },
    });
    const html = await response.text();
    expect(html).toContain('<meta property="og:url" content="http://');
    expect(html).not.toContain('javascript:');
  });

  it('7: answers a malformed URL with the Arabic JSON and the security headers', async () => {
    const answer = await new Promise<string>((done, fail) => {
      let text = '';
      const socket = connect(server.port, '127.0.0.1', () =>
        socket.write('GET /register/x%ff HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'),
      );
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => done(text));
      socket.on('error', fail);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain(JSON.stringify({ error: ar.errorBadRequest }));
    expect(answer.toLowerCase()).toContain('content-security-policy:');
    expect(answer).not.toContain('x%ff');
  });

  it('13: keeps API answers out of caches and the powerful features off', async () => {
    const response = await fetch(`${server.origin}/api/health`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('permissions-policy')).toContain('camera=()');
    expect(response.headers.get('strict-transport-security')).toBeNull();
  });
});
