import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startServerProcess } from '../../testing/server-process';
import { buildPayload, type RegistrationPayload } from '../domain/registration';
import {
  createTestDatabase,
  testDatabaseUrl,
  testRedisUrl,
  testRedisUrlWithPrefix,
  writeFixtureBuild,
} from '../../testing/server-test-helpers';

// Two real server processes (`tsx src/server/main.ts`) on one PostgreSQL schema and one Redis
// key prefix, as docs/deploying.md describes: what no in-process test can show.
const rateLimit = 5;

interface Instance {
  origin: string;
  output: () => string;
}

/** Starts one server on a free port, and resolves once it answers; stopped after the test. */
async function startInstance(env: Record<string, string>, logFile: string): Promise<Instance> {
  const server = await startServerProcess({ entry: 'src/server/main.ts', env, logFile });
  onTestFinished(async () => {
    await server.stop();
  });
  return { origin: server.origin, output: () => readFileSync(logFile, 'utf8') };
}

async function post(instance: Instance, payload: RegistrationPayload, clientIp: string) {
  const response = await fetch(`${instance.origin}/api/external-register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp },
    body: JSON.stringify(payload),
  });
  const body = (await response.json()) as { id?: string; error?: string };
  return { status: response.status, id: body.id, error: body.error };
}

const phoneOf = (n: number) => `9665${String(n).padStart(8, '0')}`;

describe.runIf(testDatabaseUrl !== undefined && testRedisUrl !== undefined)(
  'two server instances on one PostgreSQL and one Redis',
  () => {
    it('store each sign-up once, a burst of repeats linked to one lead, and share one rate limit', async () => {
      const database = await createTestDatabase('postgres');
      onTestFinished(() => database.drop());
      const dir = await mkdtemp(join(tmpdir(), 'tasjeel-instances-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      await writeFixtureBuild(join(dir, 'dist'));

      const env = {
        DATABASE_URL: database.url,
        REDIS_URL: testRedisUrlWithPrefix(),
        DIST_DIR: join(dir, 'dist'),
        // As behind a load balancer: the client is the X-Forwarded-For address.
        TRUST_PROXY: '1',
        RATE_LIMIT_PER_MINUTE: String(rateLimit),
        LOG_LEVEL: 'info',
        // Two servers, their start-up and this burst share 2 cores with the other test files, so
        // the event loop lags for reasons no visitor causes; shedding has tests of its own.
        // Instead of a pause for the lag to settle, nothing is shed.
        LOAD_SHED_DELAY_MS: '0',
        CORS_ORIGINS: '',
        SITE_URL: '',
      };
      // Both start at once on an empty schema: the migrations must take turns.
      const instances = await Promise.all(
        [1, 2].map((n) => startInstance(env, join(dir, `instance-${n}.log`))),
      );
      const at = (i: number) => instances[i % instances.length] as Instance;
      // A process that has just started is still compiling: warm each one up (health opens a
      // database connection, a refused body runs the validation), so that the burst meets
      // running servers rather than the start-up.
      for (const instance of instances) {
        for (let i = 0; i < 10; i++) {
          await fetch(`${instance.origin}/api/health`).then((response) => response.arrayBuffer());
          await post(instance, { name: 'x', phone: '0', notes: '' }, '192.0.2.1');
        }
      }

      // Phase 1: 200 requests at once, alternating instances, each from a client address of
      // its own (so the limit stays out of the way); every fourth is the same sign-up.
      const duplicate = buildPayload(
        { name: 'سارة', email: '', phone: '966599999999' },
        { packageName: 'premium_reco', marketingId: '42' },
      );
      const sent = Array.from({ length: 200 }, (_, i) =>
        i % 4 === 0
          ? duplicate
          : buildPayload(
              { name: `عميل ${i}`, email: '', phone: phoneOf(i) },
              i % 3 === 0 ? { packageName: 'classic_reco', marketingId: `m${i % 7}` } : {},
            ),
      );
      const answers = await Promise.all(
        sent.map((payload, i) => post(at(i), payload, `10.0.${i >> 8}.${i & 255}`)),
      );
      const rows = await database.rows();
      const duplicateIds = new Set(
        answers.filter((_, i) => sent[i] === duplicate).map((answer) => answer.id),
      );
      const phase1 = {
        sent: sent.length,
        distinct: sent.filter((payload) => payload !== duplicate).length,
        duplicatesSent: sent.filter((payload) => payload === duplicate).length,
        stored: rows.length,
        duplicatesStored: rows.filter((row) => row.phone === duplicate.phone).length,
        firstRows: rows.filter((row) => row.repeat_of === null).length,
        '5xx': answers.filter((answer) => answer.status >= 500).length,
      };

      // Phase 2: one client address, requests alternating instances: counted apart, each
      // instance would let `rateLimit` through; counted together, only `rateLimit` pass.
      const burst = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post(
            at(i),
            buildPayload({ name: 'سارة', email: '', phone: phoneOf(1000 + i) }, {}),
            '203.0.113.7',
          ),
        ),
      );
      const phase2 = {
        sent: burst.length,
        accepted: burst.filter((answer) => answer.status === 201).length,
        '429s': burst.filter((answer) => answer.status === 429).length,
        '5xx': burst.filter((answer) => answer.status >= 500).length,
      };
      // Any 5xx, by status and text, so that a red run in CI says why.
      const failures = [...answers, ...burst]
        .filter((answer) => answer.status >= 500)
        .map((answer) => `${answer.status} ${answer.error ?? ''}`);
      if (failures.length > 0) console.log('5xx answers:', failures);
      console.log(
        `multi-instance, 2 instances: sent ${phase1.sent} (${phase1.distinct} distinct + ` +
          `${phase1.duplicatesSent} duplicates), stored ${phase1.stored} (${phase1.firstRows} ` +
          `first rows), duplicates stored ${phase1.duplicatesStored}, 5xx ${phase1['5xx']}; rate limit ${rateLimit}/min from ` +
          `one address: sent ${phase2.sent}, accepted ${phase2.accepted}, 429s ` +
          `${phase2['429s']}, 5xx ${phase2['5xx']}`,
      );

      expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(201));
      expect(duplicateIds.size).toBe(1);
      // Every submission is a row; the duplicates are one first row and repeats of it.
      expect(rows).toHaveLength(sent.length);
      const firstRows = rows.filter((row) => row.repeat_of === null);
      const storedPhones = firstRows.map((row) => row.phone).sort();
      const sentPhones = [...new Set(sent.map((payload) => payload.phone))].sort();
      expect(storedPhones).toEqual(sentPhones);
      const storedIds = new Map(firstRows.map((row) => [row.phone, row.id]));
      sent.forEach((payload, i) => expect(answers[i]?.id).toBe(storedIds.get(payload.phone)));
      const [duplicateId] = duplicateIds;
      expect(rows.filter((row) => row.repeat_of !== null).map((row) => row.repeat_of)).toEqual(
        Array(phase1.duplicatesSent - 1).fill(duplicateId),
      );

      expect(phase2).toEqual({ sent: 20, accepted: rateLimit, '429s': 20 - rateLimit, '5xx': 0 });
      for (const instance of instances) expect(instance.output()).not.toContain('"level":50');
    }, 90_000);

    it('racing one phone through two marketers’ links, flag one of its two leads contested', async () => {
      const database = await createTestDatabase('postgres');
      onTestFinished(() => database.drop());
      const dir = await mkdtemp(join(tmpdir(), 'tasjeel-instances-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      await writeFixtureBuild(join(dir, 'dist'));
      const env = {
        DATABASE_URL: database.url,
        REDIS_URL: testRedisUrlWithPrefix(),
        DIST_DIR: join(dir, 'dist'),
        LOAD_SHED_DELAY_MS: '0',
        LOG_LEVEL: 'warn',
      };
      const instances = await Promise.all(
        [1, 2].map((n) => startInstance(env, join(dir, `instance-${n}.log`))),
      );
      for (const instance of instances) {
        await fetch(`${instance.origin}/api/health`).then((response) => response.arrayBuffer());
      }

      // Each phone at once through marketer 1's link on one instance and marketer 2's, for
      // another package, on the other: two leads (the notes differ), one of them contested.
      const phones = Array.from({ length: 20 }, (_, i) => phoneOf(2000 + i));
      const answers = await Promise.all(
        phones.flatMap((phone, i) =>
          [
            { packageName: 'premium_reco', marketingId: 'm1' },
            { packageName: 'classic_reco', marketingId: 'm2' },
          ].map((route, side) =>
            post(
              instances[(i + side) % 2] as Instance,
              buildPayload({ name: 'سارة', email: '', phone }, route),
              `10.1.${i}.${side}`,
            ),
          ),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(201));

      const rows = await database.rows();
      const contested = (await database.flags()).filter((flag) => flag.flag === 'contested');
      expect(rows.filter((row) => row.repeat_of === null)).toHaveLength(40);
      for (const phone of phones) {
        const leads = rows.filter((row) => row.phone === phone);
        const flagged = contested.filter((flag) =>
          leads.some((lead) => lead.id === flag.registration_id),
        );
        // Whichever instance took the phone's lock second flags its lead, naming the other.
        expect(flagged).toHaveLength(1);
        expect([flagged[0]?.registration_id, flagged[0]?.other_id].sort()).toEqual(
          leads.map((lead) => lead.id).sort(),
        );
      }
    }, 90_000);
  },
);
