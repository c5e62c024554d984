import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import SqliteDatabase from 'better-sqlite3';
import { Client } from 'pg';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { arForm } from '../domain/catalogue/form';
import { arStats } from '../domain/catalogue/marketer-stats';
import { buildPayload } from '../domain/registration';
import {
  buildTestApp,
  sqliteBackend,
  testBackends,
  testDatabaseUrl,
  uniqueName,
} from '../../testing/server-test-helpers';
import { lockKey } from './db/dialect';
import { deletionLock } from './registrations/personal-data';
import { e2eMarketerAuthSecret, marketerToken } from '../../testing/marketer-auth';

const url = '/api/external-register';
const phoneOf = (n: number) => `96651234567${n}`;
const payload = (n: number) => buildPayload({ name: 'سارة', email: '', phone: phoneOf(n) }, {});

type App = Awaited<ReturnType<typeof buildTestApp>>['app'];

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await run();
  return [result, performance.now() - start];
}

/** Polls /api/ready until it answers 200: the app is expected to heal without a restart. */
async function healed(app: App, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while ((await app.inject({ url: '/api/ready' })).statusCode !== 200) {
    if (Date.now() > deadline) throw new Error(`still unhealthy after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * A TCP proxy between the app and PostgreSQL, so a test can take the database away without
 * stopping the real server: `cut` refuses connections and resets the open ones (a crash or a
 * restart), `stall` keeps them open but lets nothing through (a network partition).
 */
async function startProxy(target: URL) {
  const pairs = new Set<[Socket, Socket]>();
  let stalled = false;
  let refusal: Buffer | undefined;
  const server = createServer((client) => {
    client.on('error', () => {});
    if (refusal !== undefined) {
      const answer = refusal;
      client.once('data', () => client.end(answer));
      return;
    }
    if (stalled) {
      client.resume();
      pairs.add([client, client]);
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
    pairs.add([client, upstream]);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const dropAll = () => {
    for (const [client, upstream] of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  const proxy = {
    port,
    async cut() {
      server.close();
      dropAll();
      await once(server, 'close');
    },
    stall() {
      stalled = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.resume();
        upstream.resume();
      }
    },
    /**
     * Answers each new connection as a database that refuses it does (an ErrorResponse with
     * this SQLSTATE), the open ones reset: a database restarted into that state.
     */
    refuse(code: string, message: string) {
      const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`);
      const header = Buffer.alloc(5);
      header.write('E');
      header.writeInt32BE(fields.length + 4, 1);
      refusal = Buffer.concat([header, fields]);
      dropAll();
    },
    async restore() {
      stalled = false;
      refusal = undefined;
      dropAll();
      if (!server.listening) {
        server.listen(port, '127.0.0.1');
        await once(server, 'listening');
      }
    },
  };
  onTestFinished(async () => {
    dropAll();
    if (server.listening) await proxy.cut();
  });
  return proxy;
}

describe.each(testBackends.filter((backend) => backend.database === 'postgres'))(
  'on $name, with the database out of reach',
  (backend) => {
    const via = (port: number) => (databaseUrl: string) => {
      const proxied = new URL(databaseUrl);
      proxied.host = `127.0.0.1:${port}`;
      return proxied.href;
    };

    it('stops the start at once with one clear line', async () => {
      const port = await closedPort();
      const [error, ms] = await timed(() =>
        buildTestApp(backend, {}, { rewriteDatabaseUrl: via(port) }).catch(
          (caught: Error) => caught,
        ),
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        /^The database \(PostgreSQL at 127\.0\.0\.1:\d+\/\w+\) could not be migrated at start-up: .*ECONNREFUSED/,
      );
      expect(ms).toBeLessThan(3_500);
    });

    it('answers 503 with the Arabic text while the server is gone, then heals by itself', async () => {
      const proxy = await startProxy(new URL(testDatabaseUrl ?? ''));
      const { app, rows, log } = await buildTestApp(
        backend,
        {},
        { rewriteDatabaseUrl: via(proxy.port) },
      );
      expect((await app.inject({ method: 'POST', url, payload: payload(1) })).statusCode).toBe(201);

      await proxy.cut();
      const [refused, ms] = await timed(() =>
        app.inject({ method: 'POST', url, payload: payload(2) }),
      );
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toEqual({ error: arForm.errorGeneric });
      expect(ms).toBeLessThan(3_500);
      // Alive all along: a liveness probe must not restart an instance for the database's sake.
      expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
      const notReady = await app.inject({ url: '/api/ready' });
      expect([notReady.statusCode, notReady.json()]).toEqual([503, { status: 'unavailable' }]);

      await proxy.restore();
      await healed(app, 5_000);
      expect((await app.inject({ method: 'POST', url, payload: payload(3) })).statusCode).toBe(201);
      expect((await rows()).map((row) => row.phone)).toEqual([phoneOf(1), phoneOf(3)]);
      expect(log()).toContain('database unavailable');
      expect(log()).not.toContain(phoneOf(2));
    });

    it('answers 503 with the Arabic text on every route that reads the database', async () => {
      const proxy = await startProxy(new URL(testDatabaseUrl ?? ''));
      const leadsKey = 'k'.repeat(32);
      const { app, log } = await buildTestApp(
        backend,
        {
          MARKETER_AUTH_SECRET: e2eMarketerAuthSecret,
          LEADS_API_KEY: leadsKey,
          PEOPLE_API_KEY: leadsKey,
        },
        { rewriteDatabaseUrl: via(proxy.port) },
      );
      const stats = async () =>
        app.inject({
          url: '/api/marketer/stats',
          headers: { authorization: `Bearer ${await marketerToken('42')}` },
        });
      expect((await stats()).statusCode).toBe(200);

      await proxy.cut();
      const statsRefused = await stats();
      const statusRefused = await app.inject({
        method: 'POST',
        url: `/api/leads/${randomUUID()}/status`,
        headers: { authorization: `Bearer ${leadsKey}` },
        payload: { status: 'client' },
      });
      // Each says what could not be done: the numbers, not a sign-up.
      expect([statsRefused.statusCode, statsRefused.json()]).toEqual([
        503,
        { error: arStats.errorStats },
      ]);
      expect([statusRefused.statusCode, statusRefused.json()]).toEqual([
        503,
        { error: arForm.errorGeneric },
      ]);
      const headers = { authorization: `Bearer ${leadsKey}` };
      const peopleRefused = [
        await app.inject({
          method: 'PUT',
          url: '/api/people/42',
          headers,
          payload: { name: 'سارة' },
        }),
        await app.inject({
          method: 'PUT',
          url: '/api/people',
          headers,
          payload: [{ marketing_id: '43', name: 'نورة' }],
        }),
        await app.inject({ method: 'GET', url: '/api/people/42', headers }),
      ];
      for (const refused of peopleRefused) {
        expect([refused.statusCode, refused.json()]).toEqual([503, { error: arForm.errorGeneric }]);
      }
      expect(log()).toContain('database unavailable');
      expect(log()).not.toContain('unexpected error');
    });

    it.each([
      ['55000', 'database "test" is not currently accepting connections'],
      ['57P03', 'the database system is shutting down'],
      ['53300', 'sorry, too many clients already'],
    ])(
      'answers 503 with the Arabic text while the database refuses connections (%s), then heals',
      async (code, message) => {
        const proxy = await startProxy(new URL(testDatabaseUrl ?? ''));
        const { app, log } = await buildTestApp(
          backend,
          {},
          { rewriteDatabaseUrl: via(proxy.port) },
        );
        expect((await app.inject({ method: 'POST', url, payload: payload(1) })).statusCode).toBe(
          201,
        );

        proxy.refuse(code, message);
        const refused = await app.inject({ method: 'POST', url, payload: payload(2) });
        expect([refused.statusCode, refused.json()]).toEqual([503, { error: arForm.errorGeneric }]);
        expect((await app.inject({ url: '/api/ready' })).statusCode).toBe(503);
        expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);

        await proxy.restore();
        await healed(app, 5_000);
        expect((await app.inject({ method: 'POST', url, payload: payload(3) })).statusCode).toBe(
          201,
        );
        expect(log()).toContain('database unavailable');
        expect(log()).not.toContain('unexpected error');
      },
    );

    it('takes a database that no longer allows connections as out of reach, and outlives its connections ended', async () => {
      // A database of its own: ALLOW_CONNECTIONS is a database's, and other tests share theirs.
      const name = uniqueName('tasjeel_refusing');
      const admin = new Client({ connectionString: testDatabaseUrl });
      await admin.connect();
      await admin.query(`create database ${name}`);
      onTestFinished(async () => {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      });
      const own = (databaseUrl: string) => {
        const changed = new URL(databaseUrl);
        changed.pathname = `/${name}`;
        changed.searchParams.delete('options');
        return changed.href;
      };
      const leadsKey = 'k'.repeat(32);
      const { app, log } = await buildTestApp(
        backend,
        { LEADS_API_KEY: leadsKey },
        { rewriteDatabaseUrl: own },
      );
      const signUp = (n: number) => app.inject({ method: 'POST', url, payload: payload(n) });
      const lead = (await signUp(1)).json<{ id: string }>().id;
      // The server's own connections, not the admin's nor a lock holder's.
      const endConnections = () =>
        admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
           where datname = $1 and application_name like 'tasjeel%'`,
          [name],
        );

      // Ended while idle in the pool, then while a request waits in its transaction (for the
      // lock an erasure holds): that request is a 503, and the server goes on.
      await endConnections();
      // pg_terminate_backend returns once the signal is sent: a sign-up that takes an ended
      // connection before the pool has heard of it is a 503 (with Retry-After); the next ones
      // are stored (the same one again is a repeat, stored and answered 201 as well).
      await expect.poll(async () => (await signUp(2)).statusCode).toBe(201);
      const holder = new Client({ connectionString: own(testDatabaseUrl ?? '') });
      await holder.connect();
      onTestFinished(() => holder.end().catch(() => {}));
      await holder.query('select pg_advisory_lock($1)', [lockKey(deletionLock).toString()]);
      const waiting = app.inject({
        method: 'POST',
        url: `/api/leads/${lead}/status`,
        headers: { authorization: `Bearer ${leadsKey}` },
        payload: { status: 'client' },
      });
      await vi.waitFor(async () => {
        const { rows } = await admin.query(
          `select 1 from pg_stat_activity where datname = $1 and wait_event = 'advisory'`,
          [name],
        );
        expect(rows).toHaveLength(1);
      });
      await endConnections();
      expect([(await waiting).statusCode, (await waiting).json()]).toEqual([
        503,
        { error: arForm.errorGeneric },
      ]);
      await holder.end();
      expect((await signUp(3)).statusCode).toBe(201);

      await admin.query(`alter database ${name} allow_connections false`);
      await endConnections();
      const refused = await signUp(4);
      expect([refused.statusCode, refused.json()]).toEqual([503, { error: arForm.errorGeneric }]);
      expect((await app.inject({ url: '/api/ready' })).statusCode).toBe(503);

      await admin.query(`alter database ${name} allow_connections true`);
      await healed(app, 5_000);
      expect((await signUp(5)).statusCode).toBe(201);
      expect(log()).not.toContain('unexpected error');
    }, 20_000);

    it('answers 503 within the time limits when the network lets nothing through', async () => {
      const proxy = await startProxy(new URL(testDatabaseUrl ?? ''));
      const { app } = await buildTestApp(backend, {}, { rewriteDatabaseUrl: via(proxy.port) });
      expect((await app.inject({ method: 'POST', url, payload: payload(1) })).statusCode).toBe(201);

      proxy.stall();
      // The pooled connection waits for query_timeout (6 s), a new one for the 3 s connect limit.
      const [[post, ready], ms] = await timed(() =>
        Promise.all([
          app.inject({ method: 'POST', url, payload: payload(2) }),
          app.inject({ url: '/api/ready' }),
        ]),
      );
      expect([post.statusCode, ready.statusCode]).toEqual([503, 503]);
      expect(post.json()).toEqual({ error: arForm.errorGeneric });
      expect(ms).toBeLessThan(8_000);

      await proxy.restore();
      await healed(app, 5_000);
      expect((await app.inject({ method: 'POST', url, payload: payload(3) })).statusCode).toBe(201);
    }, 20_000);
  },
);

describe('on SQLite, with the database locked by another process', () => {
  it('answers 503 once busy_timeout passes, and stores again when the lock is gone', async () => {
    const { app, databaseUrl, rows } = await buildTestApp(sqliteBackend);
    const holder = new SqliteDatabase(databaseUrl.slice('sqlite:'.length));
    onTestFinished(() => void holder.close());
    holder.exec('begin immediate');

    const refused = await app.inject({ method: 'POST', url, payload: payload(1) });
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({ error: arForm.errorGeneric });

    holder.exec('rollback');
    expect((await app.inject({ method: 'POST', url, payload: payload(2) })).statusCode).toBe(201);
    expect(await rows()).toHaveLength(1);
  }, 15_000);
});

describe('with Redis out of reach', () => {
  it('goes on taking sign-ups without the limit, each answered within the time limit', async () => {
    const port = await closedPort();
    const { app, rows, log } = await buildTestApp(sqliteBackend, {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      RATE_LIMIT_PER_MINUTE: '1',
    });
    for (const n of [1, 2, 3]) {
      const [response, ms] = await timed(() =>
        app.inject({ method: 'POST', url, payload: payload(n) }),
      );
      expect(response.statusCode).toBe(201);
      expect(ms).toBeLessThan(2_000);
    }
    expect(await rows()).toHaveLength(3);
    expect(log()).toContain('Redis does not answer: the rate limit is skipped');
  });

  it('takes sign-ups with proof of work on: a solved challenge is spent in the database', async () => {
    const port = await closedPort();
    const { app, rows } = await buildTestApp(sqliteBackend, {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      ALTCHA_HMAC_KEY: 'k'.repeat(32),
    });
    const challenge = (await app.inject({ url: '/api/altcha-challenge' })).json<Challenge>();
    const solution = await solveChallenge({ challenge, deriveKey });
    const altcha = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
    const signUp = () => app.inject({ method: 'POST', url, payload: { ...payload(1), altcha } });
    expect((await signUp()).statusCode).toBe(201);
    const again = await signUp();
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ error: arForm.errorChallenge });
    expect(await rows()).toHaveLength(1);
  });
});
