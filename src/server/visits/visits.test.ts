import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database';
import { loadConfig } from '../env';
import { openRedis } from '../redis';
import {
  buildTestApp,
  describeOnBackends,
  testRedisUrlWithPrefix,
} from '../../../testing/server-test-helpers';
import { buildPayload } from '../../domain/registration';
import { otherCampaign } from '../campaigns';
import { countAll, signUpColumns, type CountKey } from '../counts';
import { createVisitCounter, linkPreviewAgents } from './visit-counter';
import { createVisitRepository, type VisitRepository } from './visit-repository';
import { createVisitSalts } from './visit-salts';

const phone = 'Mozilla/5.0 (Linux; Android 14; SM-A546E) AppleWebKit/537.36 Chrome/126.0 Mobile';
const laptop = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15';
const ip = '203.0.113.7';

// What WhatsApp, Telegram, X, Slack, Facebook, LinkedIn, Discord and Skype send for a preview.
const previewAgents = [
  'WhatsApp/2.23.20.0 A',
  'TelegramBot (like TwitterBot)',
  'Twitterbot/1.0',
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Mozilla/5.0 (compatible; Facebot/1.0)',
  'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
  'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
  'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5',
];

/** Every row of a table, read through a connection of its own. */
async function tableRows(databaseUrl: string, table: 'visits' | 'visit_totals') {
  const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
  try {
    return await database.db
      .selectFrom(table)
      .selectAll()
      .orderBy('day')
      .orderBy('marketing_id')
      .execute();
  } finally {
    await database.close();
  }
}

describe('linkPreviewAgents', () => {
  it.each(previewAgents)('knows %s', (agent) => {
    expect(linkPreviewAgents.test(agent)).toBe(true);
  });

  it.each([phone, laptop, 'Mozilla/5.0 (iPhone) Mobile/15E148 [FBAN/FBIOS;FBAV/470.0]'])(
    'lets %s through: a person, in a browser or an in-app one',
    (agent) => {
      expect(linkPreviewAgents.test(agent)).toBe(false);
    },
  );
});

/**
 * The report's visit columns of each group the count gives, by `by`, read through a connection
 * of its own: the sign-up columns are left out (these tests send none but where they say so).
 */
async function visitTotals<K extends CountKey>(databaseUrl: string, by: K[]) {
  const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
  try {
    return (await countAll(database.db, by)).map((row) => {
      const visits: Record<string, unknown> = { ...row };
      for (const column of signUpColumns) delete visits[column];
      return visits;
    });
  } finally {
    await database.close();
  }
}

describeOnBackends('on $name', (backend) => {
  /** The app on a clock the test moves, and the visits it has counted. */
  async function start() {
    const clock = { now: new Date('2025-03-01T10:00:00Z') };
    const test = await buildTestApp(backend, {}, { now: () => clock.now });
    const visit = (
      url: string,
      agent = phone,
      remoteAddress = ip,
      method: 'GET' | 'HEAD' = 'GET',
    ) => test.app.inject({ method, url, remoteAddress, headers: { 'user-agent': agent } });
    const totals = async () => {
      // The count is taken once the response is sent; then it waits for the next flush.
      await new Promise((resolve) => setImmediate(resolve));
      await test.services.visits.flush();
      return await visitTotals(test.databaseUrl, ['marketing_id', 'package_key']);
    };
    return { ...test, clock, visit, totals };
  }

  describe('visits', () => {
    it('counts each form route per marketer and package, once a visitor and day', async () => {
      const { visit, totals } = await start();
      await visit('/register/register-client/premium_reco/42?utm_source=whatsapp');
      await visit('/register/register-client/premium_reco/42');
      await visit('/register/register-client/premium_reco/42', laptop);
      await visit('/register/marketer/42');
      await visit('/register/register-client/classic_portfolio');
      await visit('/register/register-client');

      expect(await totals()).toEqual(
        expect.arrayContaining([
          { marketing_id: '42', package_key: 'premium_reco', visits: 2, unique_visitors: 2 },
          { marketing_id: '42', package_key: null, visits: 1, unique_visitors: 1 },
          { marketing_id: null, package_key: 'classic_portfolio', visits: 1, unique_visitors: 1 },
          { marketing_id: null, package_key: null, visits: 1, unique_visitors: 1 },
        ]),
      );
      expect(await totals()).toHaveLength(4);
    });

    it("keeps the utm_source and utm_campaign of a visitor's first view that day, when they pass the rules", async () => {
      const { clock, visit, totals, databaseUrl } = await start();
      const url = '/register/marketer/42';
      await visit(`${url}?utm_source=snapchat&utm_campaign=ramadan&utm_medium=cpc`);
      await visit(url);
      await visit(`${url}?utm_source=snap%07chat&utm_campaign=${'c'.repeat(150)}`, laptop);
      await totals();
      const rows = await tableRows(databaseUrl, 'visits');
      expect(rows.map(({ utm_source, utm_campaign }) => [utm_source, utm_campaign])).toEqual(
        expect.arrayContaining([
          ['snapchat', 'ramadan'],
          ['', 'c'.repeat(100)],
        ]),
      );
      expect(rows).toHaveLength(2);
      expect(JSON.stringify(rows)).not.toContain('cpc');

      // Rolled up, a day keeps its campaigns apart.
      clock.now = new Date('2025-03-02T09:00:00Z');
      await visit(`${url}?utm_source=qr`);
      await totals();
      const rolledUp = await tableRows(databaseUrl, 'visit_totals');
      expect(
        rolledUp.map(({ day, utm_source, utm_campaign, visits }) => [
          day,
          utm_source,
          utm_campaign,
          Number(visits),
        ]),
      ).toEqual(
        expect.arrayContaining([
          ['2025-03-01', 'snapchat', 'ramadan', 1],
          ['2025-03-01', '', 'c'.repeat(100), 1],
        ]),
      );
      expect(await totals()).toEqual([
        { marketing_id: '42', package_key: null, visits: 3, unique_visitors: 3 },
      ]);
    });

    it('tells visitors apart by IP and user agent together', async () => {
      const { visit, totals } = await start();
      const url = '/register/marketer/7';
      await visit(url, phone, '198.51.100.1');
      await visit(url, phone, '198.51.100.1');
      await visit(url, laptop, '198.51.100.1');
      await visit(url, phone, '198.51.100.2');
      expect(await totals()).toEqual([
        { marketing_id: '7', package_key: null, visits: 3, unique_visitors: 3 },
      ]);
    });

    it('counts at most 10 visitors from one address (IPv6: one /48) on a link, whatever browsers it claims', async () => {
      const { visit, totals } = await start();
      const url = '/register/register-client/premium_reco/42';
      for (let i = 0; i < 300; i += 1) await visit(url, `${phone} build/${i}`);
      for (let i = 0; i < 300; i += 1) {
        await visit('/register/marketer/42', phone, `2001:db8:7:${i.toString(16)}::1`);
      }
      // Another address is counted as ever.
      await visit(url, phone, '198.51.100.20');
      expect(await totals()).toEqual(
        expect.arrayContaining([
          { marketing_id: '42', package_key: 'premium_reco', visits: 11, unique_visitors: 11 },
          { marketing_id: '42', package_key: null, visits: 10, unique_visitors: 10 },
        ]),
      );
    });

    it('leaves at most 50 rows of the campaign report from 300 campaigns of one address', async () => {
      const { visit, totals, databaseUrl } = await start();
      for (let i = 0; i < 300; i += 1) {
        const campaign = encodeURIComponent(`CALL 0500000000 TO CLAIM ${i}`);
        await visit(
          `/register/marketer/m${i}?utm_source=sms&utm_campaign=${campaign}`,
          `${phone} ${i}`,
        );
      }
      await totals();
      const campaigns = await visitTotals(databaseUrl, ['utm_source', 'utm_campaign']);
      expect(campaigns.length).toBeLessThanOrEqual(50);
      // Its first ten campaigns by name, the rest as other; 100 visits a day from one address.
      expect(campaigns).toHaveLength(11);
      expect(campaigns).toContainEqual({
        utm_source: otherCampaign,
        utm_campaign: otherCampaign,
        visits: 90,
        unique_visitors: 90,
      });
    });

    it('names the 20 campaigns of a link and day with the most leads, the rest as other, for visits and leads alike', async () => {
      const { app, visit, totals, databaseUrl } = await start();
      const url = '/register/marketer/42';
      const campaigns = Array.from({ length: 25 }, (_, i) => `k${String(i).padStart(2, '0')}`);
      // k00–k04 have one lead each, the other twenty two: the twenty keep their names, though
      // the five were visited first and signed up through last.
      const small = campaigns.slice(0, 5);
      for (const [i, campaign] of campaigns.entries()) {
        const query = new URLSearchParams({ utm_source: 'ads', utm_campaign: campaign });
        await visit(`${url}?${query}`, phone, `198.51.100.${i}`);
      }
      const signUps = [...campaigns.slice(5), ...campaigns.slice(5), ...small].reverse();
      for (const [i, campaign] of signUps.entries()) {
        const payload = buildPayload(
          { name: 'سارة', email: '', phone: `9665000001${String(i).padStart(2, '0')}` },
          { marketingId: '42' },
          { utm_source: 'ads', utm_campaign: campaign },
        );
        expect(
          (await app.inject({ method: 'POST', url: '/api/external-register', payload })).statusCode,
        ).toBe(201);
      }
      await totals();
      const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
      try {
        const counted = await countAll(database.db, ['utm_source', 'utm_campaign']);
        const named = (rows: { utm_campaign: string | null }[]) =>
          rows.map((row) => row.utm_campaign).sort();
        expect(named(counted)).toEqual([otherCampaign, ...campaigns.slice(5)]);
        expect(counted).toContainEqual({
          utm_source: otherCampaign,
          utm_campaign: otherCampaign,
          visits: 5,
          unique_visitors: 5,
          leads: 5,
          repeats: 0,
          contacted: 0,
          qualified: 0,
          clients: 0,
          lost: 0,
          // Past the 20th lead of the link in ten minutes, the whole burst is flagged `burst`,
          // its first leads included.
          flagged: 5,
          awaiting_review: 5,
          not_credited: 0,
        });
        for (const row of counted.filter((row) => row.utm_campaign !== otherCampaign)) {
          expect(row).toMatchObject({ visits: 1, leads: 2 });
        }
        // Counted by the campaign's name alone, the same campaigns are named.
        expect(named(await countAll(database.db, ['utm_campaign']))).toEqual(named(counted));
      } finally {
        await database.close();
      }
    });

    it('counts a visit to a package key the catalogue does not know under no package', async () => {
      const { visit, totals } = await start();
      await visit('/register/register-client/call_me_now/42');
      expect(await totals()).toEqual([
        { marketing_id: '42', package_key: null, visits: 1, unique_visitors: 1 },
      ]);
    });

    it('counts a reload, or ten, as the one visit it is', async () => {
      const { visit, totals } = await start();
      for (let i = 0; i < 10; i += 1) await visit('/register/marketer/7');
      expect(await totals()).toEqual([
        { marketing_id: '7', package_key: null, visits: 1, unique_visitors: 1 },
      ]);
    });

    it('counts only links that could bring a sign-up, and a bad id never costs the good visits', async () => {
      const { visit, totals } = await start();
      // A NUL once made PostgreSQL refuse the whole second's batch (security finding 2).
      await visit('/register/marketer/%00');
      await visit(`/register/marketer/${'7'.repeat(65)}`);
      await visit('/register/marketer/%1b%5b2J%0d%0aTotal%209999');
      await visit(`/register/register-client/${encodeURIComponent('حوّل 100 ريال')}/7`);
      for (let i = 0; i < 20; i += 1) await visit('/register/marketer/7', phone, `198.51.100.${i}`);
      expect(await totals()).toEqual([
        { marketing_id: '7', package_key: null, visits: 20, unique_visitors: 20 },
      ]);
    });

    it.each(previewAgents)('does not count a link preview fetched by %s', async (agent) => {
      const { visit, totals } = await start();
      const response = await visit('/register/register-client/premium_reco/42', agent);
      expect(response.statusCode).toBe(200);
      expect(await totals()).toEqual([]);
    });

    it('does not count HEAD, an unknown page, the link page, an asset or a refusal', async () => {
      const { app, visit, totals } = await start();
      await visit('/register/marketer/42', phone, ip, 'HEAD');
      expect((await visit('/register/marketer')).statusCode).toBe(404);
      await visit('/register/my-registration-link');
      await visit('/register/favicon.svg');
      await app.inject({ method: 'POST', url: '/register/marketer/42' });
      expect(await totals()).toEqual([]);
    });

    it('rotates the hash daily and rolls a finished day up, its visitors deleted', async () => {
      const { clock, visit, totals, databaseUrl } = await start();
      const url = '/register/register-client/economy_reco/42';
      await visit(url);
      clock.now = new Date('2025-03-01T23:59:59Z');
      await visit(url);
      await totals();
      const [first] = await tableRows(databaseUrl, 'visits');
      clock.now = new Date('2025-03-02T00:00:00Z');
      await visit(url);
      // Unique per day: one visitor on each of two days counts twice.
      expect(await totals()).toEqual([
        { marketing_id: '42', package_key: 'economy_reco', visits: 2, unique_visitors: 2 },
      ]);
      const rows = await tableRows(databaseUrl, 'visits');
      expect(rows.map(({ day }) => day)).toEqual(['2025-03-02']);
      expect(rows[0]?.visitor_hash).not.toBe(first?.visitor_hash);
      const rolledUp = await tableRows(databaseUrl, 'visit_totals');
      expect(
        rolledUp.map(({ day, visits, visitors }) => [day, Number(visits), Number(visitors)]),
      ).toEqual([['2025-03-01', 1, 1]]);

      if (backend.database === 'sqlite') {
        // secure_delete: the deleted hash is not left behind in the file's free pages.
        const file = databaseUrl.slice('sqlite:'.length);
        const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
        // Until the checkpoint is whole: a count in the app's counts' thread may be reading.
        await expect
          .poll(
            async () =>
              (await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(database.db))
                .rows[0]?.busy,
          )
          .toBe(0);
        await database.close();
        expect(readFileSync(file).includes(String(first?.visitor_hash))).toBe(false);
      }
    });

    it('never stores the IP, the user agent or the salt', async () => {
      const { visit, totals, databaseUrl } = await start();
      const agent = `${laptop} tasjeel-marker`;
      await visit('/register/marketer/42', agent, '192.0.2.99');
      await totals();
      const stored = JSON.stringify([
        await tableRows(databaseUrl, 'visits'),
        await tableRows(databaseUrl, 'visit_totals'),
      ]);
      expect(stored).toContain('42');
      expect(stored).not.toContain('192.0.2.99');
      expect(stored).not.toContain('tasjeel-marker');
      expect(stored).not.toContain('Macintosh');
    });

    it.runIf(backend.redis)('hashes alike on every instance that shares Redis', async () => {
      const url = testRedisUrlWithPrefix();
      const clients = [openRedis(url, () => {}), openRedis(url, () => {})];
      try {
        const salts = await Promise.all(
          clients.map((redis) => createVisitSalts(redis, () => {}).salt('2025-03-05')),
        );
        expect(salts[0]).toHaveLength(43);
        expect(salts[1]).toBe(salts[0]);
      } finally {
        for (const redis of clients) redis.disconnect();
      }
    });

    it('writes each visit of a batch the database refuses alone, so one bad row costs no other', async () => {
      const { databaseUrl, app } = await start();
      const database = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
      const stored = createVisitRepository(database);
      // The database refusing one visit of a batch, as PostgreSQL refused a NUL.
      const refusing: VisitRepository = {
        ...stored,
        add: async (visits) => {
          if (visits.some((visit) => visit.marketingId === 'refused')) throw new Error('refused');
          return stored.add(visits);
        },
      };
      const counter = createVisitCounter(refusing, {
        salts: createVisitSalts(undefined, () => {}),
        now: () => new Date('2025-03-01T10:00:00Z'),
        log: app.log,
      });
      try {
        for (const marketingId of ['1', 'refused', '2']) {
          counter.record({ marketingId, ip, userAgent: phone });
        }
        await counter.flush();
        const totalsByMarketer = (await countAll(database.db, ['marketing_id']))
          .map((row) => row.marketing_id)
          .sort();
        expect(totalsByMarketer).toEqual(['1', '2']);
      } finally {
        await database.close();
      }
    });

    it('writes the visits still in memory when the app closes', async () => {
      const { app, visit, databaseUrl } = await start();
      await visit('/register/marketer/42');
      await new Promise((resolve) => setImmediate(resolve));
      await app.close();
      expect(await tableRows(databaseUrl, 'visits')).toHaveLength(1);
    });
  });
});
