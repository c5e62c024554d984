import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildPayload } from '../../domain/registration';
import { startServerProcess, type ServerProcess } from '../../../testing/server-process';
import {
  createTestDatabase,
  testDatabaseUrl,
  writeFixtureBuild,
  type DatabaseKind,
} from '../../../testing/server-test-helpers';
import {
  newWebhookSecret,
  startWebhookReceiver,
  type Answer,
} from '../../../testing/webhook-receiver';

// Real server processes (`tsx src/server/main.ts`): a SIGKILL, and two instances sharing one
// PostgreSQL outbox, are what no in-process test can show.

const phoneOf = (n: number) => `9665${String(n).padStart(8, '0')}`;

async function setUp(kind: DatabaseKind, answer: Answer, overrides: Record<string, string> = {}) {
  const database = await createTestDatabase(kind);
  onTestFinished(() => database.drop());
  const dir = await mkdtemp(join(tmpdir(), 'tasjeel-webhooks-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFixtureBuild(join(dir, 'dist'));
  const secret = newWebhookSecret();
  const receiver = await startWebhookReceiver(secret, answer);
  onTestFinished(() => receiver.close());
  const env = {
    DATABASE_URL: database.url,
    DIST_DIR: join(dir, 'dist'),
    WEBHOOK_URL: receiver.url,
    WEBHOOK_SECRET: secret,
    WEBHOOK_TIMEOUT_MS: '500',
    WEBHOOK_RETRY_DELAYS: Array(20).fill('200ms').join(','),
    RATE_LIMIT_PER_MINUTE: '100000',
    LOAD_SHED_DELAY_MS: '0',
    REDIS_URL: '',
    ...overrides,
  };
  let started = 0;
  const start = async () => {
    started += 1;
    const server = await startServerProcess({
      entry: 'src/server/main.ts',
      env,
      logFile: join(dir, `server-${started}.log`),
    });
    onTestFinished(async () => {
      await server.stop();
    });
    return server;
  };
  return { database, receiver, start };
}

async function signUp(server: ServerProcess, n: number): Promise<string> {
  const response = await fetch(`${server.origin}/api/external-register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      buildPayload({ name: `عميل ${n}`, email: '', phone: phoneOf(n) }, { marketingId: 'm1' }),
    ),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('webhooks across server processes', () => {
  it('loses none of the events pending when the server is SIGKILLed', async () => {
    // The first 5 attempts are answered, then none until the server has been killed.
    let up = false;
    const { receiver, start } = await setUp('sqlite', (_, n) => (up || n <= 5 ? 200 : 'hang'));
    const first = await start();
    const ids = [];
    for (let n = 0; n < 20; n += 1) ids.push(await signUp(first, n));
    await receiver.waitFor(5);
    first.child.kill('SIGKILL');
    await first.exited;

    // The attempts the kill interrupted were never answered.
    expect(receiver.received).toHaveLength(5);
    up = true;
    await start();
    // Events claimed by the killed process come back when their lease (time-out + 5 s) ends.
    await receiver.waitFor(20, 30_000);
    expect(new Set(receiver.received.map((event) => event.data.id))).toEqual(new Set(ids));
  }, 60_000);

  it.runIf(testDatabaseUrl !== undefined)(
    'two instances on PostgreSQL deliver 1,000 sign-ups once each',
    async () => {
      // The default time-out: an answer slowed past a short one by a busy machine would be
      // sent again, as it should be, and count as a duplicate here.
      const { database, receiver, start } = await setUp('postgres', () => 200, {
        WEBHOOK_TIMEOUT_MS: '10000',
        // A thousand sign-ups through one link at once are a burst, whose first twenty would
        // get a registration.flagged event each: one event a sign-up here.
        BURST_LEADS: '10000',
      });
      const instances = await Promise.all([start(), start()]);
      const ids: string[] = [];
      // 20 clients at a time, alternating instances.
      for (let batch = 0; batch < 50; batch += 1) {
        ids.push(
          ...(await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              signUp(instances[i % 2] as ServerProcess, batch * 20 + i),
            ),
          )),
        );
      }
      const undelivered = async () =>
        (await database.events()).filter((event) => event.status !== 'delivered').length;
      await receiver.waitFor(1_000, 30_000);
      await expect.poll(undelivered).toBe(0);
      // Anything sent twice was sent as it was claimed, before its event was delivered: before
      // a sign-up made now at each instance is even claimed. Once these two have come, so has it.
      ids.push(...(await Promise.all(instances.map((instance, i) => signUp(instance, 1_000 + i)))));
      await receiver.waitFor(ids.length, 30_000);
      await expect.poll(undelivered).toBe(0);
      const received = receiver.received.map((event) => event.id);
      console.log(
        `webhooks, 2 instances: ${ids.length} sign-ups, ${received.length} deliveries, ${new Set(received).size} distinct`,
      );
      expect(received).toHaveLength(ids.length);
      expect(new Set(received).size).toBe(ids.length);
      expect(new Set(receiver.received.map((event) => event.data.id))).toEqual(new Set(ids));
    },
    90_000,
  );
});
