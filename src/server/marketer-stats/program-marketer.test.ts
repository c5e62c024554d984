import { SignJWT, type JWTPayload } from 'jose';
import { expect, it } from 'vitest';
import { arStats } from '../../domain/catalogue/marketer-stats';
import { arProgram } from '../../domain/catalogue/program';
import { ar } from '../../domain/catalogue/shared';
import type { LeadFlag } from '../../domain/lead-review';
import type { ProgramMarketerStats } from '../../domain/program-marketer';
import type { ProgramStats } from '../../domain/program-stats';
import { buildPayload, registrationSchema } from '../../domain/registration';
import { buildTestApp, describeOnBackends } from '../../../testing/server-test-helpers';

const secret = 'a-secret-the-platform-shares-with-tasjeel';
const agent = 'Mozilla/5.0 (Linux; Android 14; SM-A546E) AppleWebKit/537.36 Chrome/126.0 Mobile';
const prospect = { name: 'سارة الزهراني', email: 'sara@example.com' };

function token(claims: JWTPayload = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'manager-1', role: 'admin', iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(secret));
}

describeOnBackends('on $name', (backend) => {
  const clock = { now: new Date('2026-11-18T12:00:00Z') };

  async function start(env: Record<string, string> = { MARKETER_AUTH_SECRET: secret }) {
    clock.now = new Date('2026-11-18T12:00:00Z');
    const test = await buildTestApp(backend, env, { now: () => clock.now });
    const get = async (path: string, bearer: string | undefined) =>
      test.app.inject({
        url: path,
        headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
      });
    const marketer = async (id: string, query = '?days=7', bearer?: string) =>
      get(`/api/program/marketers/${id}/stats${query}`, bearer ?? (await token()));
    const programme = async (query = '?days=7') =>
      (await get(`/api/program/stats${query}`, await token())).json<ProgramStats>();
    return { ...test, marketer, programme };
  }

  /**
   * Marketer 42, in 1007's team: on the 18th (the previous 7 days) a lead; on the 24th three
   * visitors of their link and three leads (a client through a campaign, one flagged fast and
   * awaiting review, one flagged burst and decided not credited); on the 26th a lead contacted.
   * Marketer 43 a lead on the 24th, the general links one.
   */
  async function withMarketer(test: Awaited<ReturnType<typeof start>>) {
    const { app, services } = test;
    let phones = 0;
    const signUp = async (marketingId?: string, utmCampaign?: string) =>
      (
        await services.registrations.register(
          registrationSchema.parse(
            buildPayload(
              { ...prospect, phone: `9665000001${String(++phones).padStart(2, '0')}` },
              { packageName: 'premium_reco', marketingId },
              utmCampaign === undefined ? {} : { utm_source: 'ads', utm_campaign: utmCampaign },
            ),
          ),
          clock.now,
          'api',
        )
      ).id;
    const flag = (id: string, name: LeadFlag) =>
      services.database.db
        .insertInto('lead_flags')
        .values({ registration_id: id, flag: name, other_id: null })
        .onConflict((oc) => oc.columns(['registration_id', 'flag']).doNothing())
        .execute();
    await services.people.put(
      [
        {
          marketing_id: '42',
          name: 'سلمى العتيبي',
          team_leader_id: '1007',
          email: null,
          active: true,
        },
        {
          marketing_id: '1007',
          name: 'نورة القحطاني',
          team_leader_id: null,
          email: null,
          active: true,
        },
      ],
      clock.now,
    );
    await signUp('42');
    clock.now = new Date('2026-11-24T12:00:00Z');
    for (const remoteAddress of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      await app.inject({
        url: '/register/register-client/premium_reco/42',
        remoteAddress,
        headers: { 'user-agent': agent },
      });
      await new Promise((resolve) => setImmediate(resolve));
      await services.visits.flush();
    }
    const client = await signUp('42', 'ramadan');
    await services.leadStatuses.change({ id: client }, 'client', 'api', clock.now);
    const awaiting = await signUp('42');
    await flag(awaiting, 'fast');
    const refused = await signUp('42');
    await flag(refused, 'burst');
    await services.leadReviews.decide(
      refused,
      { credited: false, note: '' },
      'manager-1',
      clock.now,
    );
    await signUp('43');
    await signUp();
    clock.now = new Date('2026-11-26T08:00:00Z');
    const contacted = await signUp('42');
    await services.leadStatuses.change({ id: contacted }, 'contacted', 'api', clock.now);
    return { awaiting, refused };
  }

  it('gives an admin one marketer: their name and team, totals against the previous period, each day, packages, campaigns, outcomes and their doubtful leads, no prospect', async () => {
    const test = await start();
    const { awaiting, refused } = await withMarketer(test);
    const response = await test.marketer('42');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.body).not.toContain(prospect.name);
    expect(response.body).not.toContain(prospect.email);
    expect(response.body).not.toMatch(/9665\d{8}/);
    const body = response.json<ProgramMarketerStats>();
    expect(body).toMatchObject({
      days: 7,
      from: '2026-11-20',
      to: '2026-11-26',
      marketing_id: '42',
      known: true,
      name: 'سلمى العتيبي',
      team_leader: { marketing_id: '1007', name: 'نورة القحطاني' },
    });
    expect(body.totals).toEqual({
      visits: 3,
      unique_visitors: 3,
      leads: 3,
      contacted: 1,
      qualified: 0,
      clients: 1,
      lost: 0,
      conversion_percent: 100,
      client_percent: 33.3,
      flagged: 2,
      not_credited: 1,
    });
    expect(body.previous).toMatchObject({ from: '2026-11-13', to: '2026-11-19' });
    expect(body.previous.totals).toMatchObject({ leads: 1, visits: 0, clients: 0 });
    expect(body.outcomes).toEqual({ new: 1, contacted: 1, qualified: 0, client: 1, lost: 0 });
    expect(body.by_day).toHaveLength(7);
    expect(body.by_day[4]).toEqual({ date: '2026-11-24', visits: 3, leads: 2, clients: 1 });
    expect(body.by_day[6]).toEqual({ date: '2026-11-26', visits: 0, leads: 1, clients: 0 });
    expect(body.packages).toEqual([
      expect.objectContaining({ package_key: 'premium_reco', leads: 3, clients: 1, visits: 3 }),
    ]);
    expect(body.campaigns.map((row) => [row.utm_source, row.utm_campaign, row.leads])).toEqual([
      [null, null, 2],
      ['ads', 'ramadan', 1],
    ]);
    expect(body.awaiting_review).toEqual({
      count: 1,
      leads: [
        {
          id: awaiting,
          created_at: '2026-11-24T12:00:00.000Z',
          marketing_id: '42',
          name: 'سلمى العتيبي',
          package_key: 'premium_reco',
          phone_end: '103',
          flags: [{ flag: 'fast', other: null }],
        },
      ],
    });
    expect(body.not_credited.count).toBe(1);
    expect(body.not_credited.leads.map((lead) => [lead.id, lead.phone_end])).toEqual([
      [refused, '104'],
    ]);
    // Their row on the programme's page: the same numbers.
    const row = (await test.programme()).marketers.find((one) => one.marketing_id === '42');
    const numbers = Object.fromEntries(Object.entries(row!).filter(([key]) => key in body.totals));
    expect(Object.keys(numbers)).toHaveLength(8);
    expect(body.totals).toMatchObject(numbers);
  });

  it("reads the marketers' kept days once the keeper has kept them", async () => {
    const test = await start();
    await withMarketer(test);
    const first = (await test.marketer('42')).json<ProgramMarketerStats>();
    const { db } = test.services.database;
    // The keeper keeps the finished days a request finds not kept; the programme's page wakes it.
    await expect
      .poll(async () => {
        await test.programme();
        // Kept once its mark is as of the day's changes (its rows may be written before it).
        const mark = await db
          .selectFrom('count_rollup_days')
          .select(['version', 'changes'])
          .where('by', '=', 'marketing_id')
          .where('day', '=', '2026-11-24')
          .executeTakeFirst();
        const changes = await db
          .selectFrom('count_day_changes')
          .select('changes')
          .where('day', '=', '2026-11-24')
          .executeTakeFirst();
        return (
          mark !== undefined &&
          mark.version !== '' &&
          Number(mark.changes) === Number(changes?.changes ?? 0)
        );
      })
      .toBe(true);
    expect((await test.marketer('42')).json()).toEqual(first);
    // Read as kept, not counted again: a kept count altered by hand shows, in the day and totals.
    await db
      .updateTable('count_rollups')
      .set((eb) => ({ leads: eb('leads', '+', 100) }))
      .where('by', '=', 'marketing_id')
      .where('day', '=', '2026-11-24')
      .where('marketing_id', '=', '42')
      .execute();
    const altered = (await test.marketer('42')).json<ProgramMarketerStats>();
    expect(altered.totals.leads).toBe(first.totals.leads + 100);
    expect(altered.by_day[4]!.leads).toBe(first.by_day[4]!.leads + 100);
    // Put back: every test's last check finds the kept days as a live count gives them.
    await db
      .updateTable('count_rollups')
      .set((eb) => ({ leads: eb('leads', '-', 100) }))
      .where('by', '=', 'marketing_id')
      .where('day', '=', '2026-11-24')
      .where('marketing_id', '=', '42')
      .execute();
  });

  it('shows an id the directory does not know, with no sign-ups, as zeros: known false, no name, no team', async () => {
    const test = await start();
    await withMarketer(test);
    const response = await test.marketer('9999', '?from=2026-11-01&to=2026-11-26');
    expect(response.statusCode).toBe(200);
    const body = response.json<ProgramMarketerStats>();
    expect(body).toMatchObject({
      days: 26,
      marketing_id: '9999',
      known: false,
      name: null,
      team_leader: null,
      packages: [],
      campaigns: [],
      awaiting_review: { count: 0, leads: [] },
      not_credited: { count: 0, leads: [] },
      outcomes: { new: 0, contacted: 0, qualified: 0, client: 0, lost: 0 },
    });
    expect(body.totals).toMatchObject({
      visits: 0,
      leads: 0,
      clients: 0,
      conversion_percent: null,
    });
    expect(body.by_day.every((day) => day.leads === 0 && day.visits === 0)).toBe(true);
  });

  it("refuses as the programme's numbers do: 401, 403, the period's and the range's 400, an id no link has", async () => {
    const { marketer } = await start();
    clock.now = new Date('2026-11-26T08:00:00Z');
    for (const bearer of ['not.a.token', await token({ exp: 1 })]) {
      const response = await marketer('42', '?days=7', bearer);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: arStats.errorSignIn });
    }
    for (const role of ['marketing', 'team_leader_marketing']) {
      const response = await marketer('42', '?days=7', await token({ role, sub: '42' }));
      expect(response.statusCode, role).toBe(403);
      expect(response.json()).toEqual({ error: ar.errorNotAuthorized });
    }
    const refusals = {
      '?days=5': arStats.errorPeriod,
      '?days=7&days=30': arStats.errorPeriod,
      '?days=7&from=2026-11-20&to=2026-11-24': arStats.errorPeriod,
      '?from=2026-11-24&to=2026-11-20': arProgram.errorRange.order,
      '?from=2026-02-30&to=2026-03-02': arProgram.errorRange.dates,
      '?from=2025-11-24&to=2026-11-25': arProgram.errorRange.length,
      '?from=2026-11-20&to=2026-11-27': arProgram.errorRange.future,
    };
    for (const [query, error] of Object.entries(refusals)) {
      const response = await marketer('42', query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual({ error });
    }
    const odd = await marketer(encodeURIComponent('<b>42</b>'));
    expect(odd.statusCode).toBe(400);
    expect(odd.json()).toEqual({ error: ar.errorBadRequest });
  });

  it('is off without MARKETER_AUTH_*: the path is a 404 like any other', async () => {
    const { marketer } = await start({});
    expect((await marketer('42')).statusCode).toBe(404);
  });
});
