import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { buildPayload } from '../domain/registration';
import type { Database } from './db/schema';
import { loadConfig } from './env';
import { countAll } from './counts';
import { retentionChunk } from './registrations/personal-data';
import { buildTestApp, describeOnBackends } from '../../testing/server-test-helpers';

// Issue 35: a backlog past RETENTION_DAYS is deleted chunk after chunk in the background, while
// the server answers. The 1,000,000 rows on PostgreSQL are reliability/retention.ts's run.

const leadsKey = 'k'.repeat(32);
const marketers = Array.from({ length: 40 }, (_, n) => `old-m${n}`);
const longAgo = '2020-01-01T00:00:00.000Z';

/** `count` submissions of long ago, in one statement: every tenth a repeat of the one before. */
async function fillBacklog({ db }: Database, count: number) {
  await sql`
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
    insert into registrations
      (id, created_at, name, phone, notes, marketing_id, package_key, repeat_of,
       privacy_url, privacy_version, channel, status)
    select 'old-' || i, cast(${longAgo} as text), 'x',
      '9665' || (10000000 + i - case when i % 10 = 0 then 1 else 0 end),
      'notes', 'old-m' || ((i - case when i % 10 = 0 then 1 else 0 end) % 40), 'premium_reco',
      case when i % 10 = 0 then 'old-' || (i - 1) end, '', '', 'api',
      case when i % 10 = 0 then null else 'new' end
    from n`.execute(db);
}

async function pastTheLimit({ db }: Database): Promise<number> {
  const { n } = await db
    .selectFrom('registrations')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('created_at', '<=', longAgo)
    .executeTakeFirstOrThrow();
  return Number(n);
}

const counts = async ({ db }: Database) =>
  (await countAll(db, ['marketing_id'], { repeats: true, marketingIds: marketers })).sort((a, b) =>
    (a.marketing_id ?? '').localeCompare(b.marketing_id ?? ''),
  );

describeOnBackends('on $name, a backlog past RETENTION_DAYS', (backend) => {
  // Large enough on SQLite for a start that waited for it to be seen waiting; a few chunks on
  // PostgreSQL, whose large backlog is the reliability run's.
  const backlog = backend.database === 'sqlite' ? 200_000 : 5 * retentionChunk;

  it('is deleted in the background: sign-ups and status changes answered meanwhile, the counts kept', async () => {
    const first = await buildTestApp(backend, { LEADS_API_KEY: leadsKey });
    await fillBacklog(first.services.database, backlog);
    const before = await counts(first.services.database);
    await first.app.close();

    const { app, services, log } = await buildTestApp(
      backend,
      { LEADS_API_KEY: leadsKey, RETENTION_DAYS: '30' },
      { config: { database: loadConfig({ DATABASE_URL: first.databaseUrl }).database } },
    );
    await app.ready();
    const signedUp = await app.inject({
      method: 'POST',
      url: '/api/external-register',
      payload: buildPayload({ name: 'سارة', email: '', phone: '966512345678' }, {}),
    });
    expect(signedUp.statusCode).toBe(201);
    const changed = await app.inject({
      method: 'POST',
      url: `/api/leads/${signedUp.json<{ id: string }>().id}/status`,
      headers: { authorization: `Bearer ${leadsKey}` },
      payload: { status: 'contacted' },
    });
    expect(changed.statusCode).toBe(200);
    // Answered while the deletion had rows left: it did not hold the start, nor these.
    expect(await pastTheLimit(services.database)).toBeGreaterThan(0);

    await expect
      .poll(() => pastTheLimit(services.database), { timeout: 120_000, interval: 250 })
      .toBe(0);
    await expect.poll(log).toContain(`"submissions":${backlog}`);
    expect(await counts(services.database)).toEqual(before);
  }, 180_000);
});
