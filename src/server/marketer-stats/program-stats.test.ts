import { SignJWT, type JWTPayload } from 'jose';
import { expect, it } from 'vitest';
import { arStats } from '../../domain/catalogue/marketer-stats';
import { arProgram } from '../../domain/catalogue/program';
import { ar } from '../../domain/catalogue/shared';
import type { LeadStatus } from '../../domain/lead-status';
import { longestRange, type ProgramStats } from '../../domain/program-stats';
import { buildPayload, registrationSchema } from '../../domain/registration';
import { buildTestApp, describeOnBackends } from '../../../testing/server-test-helpers';
import { otherCampaign } from '../campaigns';
import { deleteSubmissions } from '../registrations/personal-data';
import { reportCommand } from '../cli/report';

const secret = 'a-secret-the-platform-shares-with-tasjeel';
const url = '/api/program/stats';
const agent = 'Mozilla/5.0 (Linux; Android 14; SM-A546E) AppleWebKit/537.36 Chrome/126.0 Mobile';

/** A token as the platform signs it: an admin's unless `claims` say otherwise. */
function token(claims: JWTPayload = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'manager-1', role: 'admin', iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(secret));
}

/** `npm run report -- --format csv` from `since` on, its rows as objects. */
async function report(databaseUrl: string, since: string, by: 'link' | 'campaign') {
  let csv = '';
  const code = await reportCommand.run(
    ['--format', 'csv', '--since', since, '--by', by],
    { DATABASE_URL: databaseUrl },
    { out: (text) => (csv += text), err: () => {} },
  );
  expect(code).toBe(0);
  const [header, ...lines] = csv.slice(1).trimEnd().split('\r\n');
  const columns = header!.split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(columns.map((column, i) => [column, cells[i]]));
  });
}

const sum = (rows: Record<string, string | undefined>[], column: string) =>
  rows.reduce((total, row) => total + Number(row[column]), 0);

describeOnBackends('on $name', (backend) => {
  const clock = { now: new Date('2026-11-20T12:00:00Z') };
  /** The finished days of the 7 days that end on the 26th, the test's today. */
  const finished = [
    '2026-11-20',
    '2026-11-21',
    '2026-11-22',
    '2026-11-23',
    '2026-11-24',
    '2026-11-25',
  ];

  async function start(env: Record<string, string> = { MARKETER_AUTH_SECRET: secret }) {
    clock.now = new Date('2026-11-20T12:00:00Z');
    const test = await buildTestApp(backend, env, { now: () => clock.now });
    const stats = async (bearer: string | undefined, query = '?days=7') =>
      test.app.inject({
        method: 'GET',
        url: `${url}${query}`,
        headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
      });
    return { ...test, stats };
  }

  /**
   * On the 20th (outside a 7-day period that ends on the 26th) marketer 7 brings a lead; on the
   * 24th marketer 42 two leads (one a client, through a campaign) and a repeat, marketer 43 one
   * (lost), a general link one; on the 26th marketer 42 one more lead, contacted. Visits: 42's
   * link three visitors on the 24th, the general link one on the 26th.
   */
  async function withProgramme(test: Awaited<ReturnType<typeof start>>) {
    const { app, services } = test;
    const visit = async (path: string, remoteAddress: string) => {
      await app.inject({ url: path, remoteAddress, headers: { 'user-agent': agent } });
      await new Promise((resolve) => setImmediate(resolve));
      await services.visits.flush();
    };
    let phones = 0;
    const signUp = async (marketingId?: string, utmCampaign?: string, phone?: string) =>
      (
        await services.registrations.register(
          registrationSchema.parse(
            buildPayload(
              {
                name: 'سارة',
                email: '',
                phone: phone ?? `9665000000${String(++phones).padStart(2, '0')}`,
              },
              { packageName: 'premium_reco', marketingId },
              utmCampaign === undefined ? {} : { utm_source: 'ads', utm_campaign: utmCampaign },
            ),
          ),
          clock.now,
          'api',
        )
      ).id;
    const outcome = (id: string, status: LeadStatus) =>
      services.leadStatuses.change({ id }, status, 'api', clock.now);

    await signUp('7');
    clock.now = new Date('2026-11-24T12:00:00Z');
    for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      await visit('/register/register-client/premium_reco/42', address);
    }
    await outcome(await signUp('42', 'ramadan'), 'client');
    await signUp('42');
    await signUp('42', undefined, '966500000002');
    await outcome(await signUp('43'), 'lost');
    await signUp();
    clock.now = new Date('2026-11-26T08:00:00Z');
    await visit('/register/register-client/premium_reco', '198.51.100.9');
    await outcome(await signUp('42'), 'contacted');
  }

  it('gives an admin the whole programme: totals, every day, marketers, campaigns and packages', async () => {
    const test = await start();
    await withProgramme(test);
    const response = await test.stats(await token());
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('private, no-store');
    const body = response.json<ProgramStats>();
    const person = /سارة|9665|@/;
    expect(JSON.stringify(body)).not.toMatch(person);
    expect(body).toMatchObject({
      days: 7,
      from: '2026-11-20',
      to: '2026-11-26',
      previous: { from: '2026-11-13', to: '2026-11-19' },
    });
    expect(body.totals).toEqual({
      visits: 4,
      unique_visitors: 4,
      leads: 6,
      contacted: 1,
      qualified: 0,
      clients: 1,
      lost: 1,
      conversion_percent: 150,
      client_percent: 16.7,
      flagged: 0,
      not_credited: 0,
    });
    expect(body.by_day.map((day) => day.date)).toEqual([...finished, '2026-11-26']);
    expect(body.by_day[0]).toEqual({ date: '2026-11-20', visits: 0, leads: 1, clients: 0 });
    expect(body.by_day[4]).toEqual({ date: '2026-11-24', visits: 3, leads: 4, clients: 1 });
    expect(body.by_day[6]).toEqual({ date: '2026-11-26', visits: 1, leads: 1, clients: 0 });
    expect(body.marketers).toEqual([
      {
        marketing_id: '42',
        name: null,
        team_leader_id: null,
        visits: 3,
        unique_visitors: 3,
        leads: 3,
        clients: 1,
        conversion_percent: 100,
        client_percent: 33.3,
        flagged: 0,
        not_credited: 0,
      },
      {
        marketing_id: null,
        name: null,
        team_leader_id: null,
        visits: 1,
        unique_visitors: 1,
        leads: 1,
        clients: 0,
        conversion_percent: 100,
        client_percent: 0,
        flagged: 0,
        not_credited: 0,
      },
      {
        marketing_id: '7',
        name: null,
        team_leader_id: null,
        visits: 0,
        unique_visitors: 0,
        leads: 1,
        clients: 0,
        conversion_percent: null,
        client_percent: 0,
        flagged: 0,
        not_credited: 0,
      },
      {
        marketing_id: '43',
        name: null,
        team_leader_id: null,
        visits: 0,
        unique_visitors: 0,
        leads: 1,
        clients: 0,
        conversion_percent: null,
        client_percent: 0,
        flagged: 0,
        not_credited: 0,
      },
    ]);
    // The directory knows none of them: no name, no team.
    expect(body.teams).toEqual([]);
    expect(body.campaigns).toEqual([
      expect.objectContaining({ utm_source: null, utm_campaign: null, other: false, leads: 5 }),
      expect.objectContaining({ utm_source: 'ads', utm_campaign: 'ramadan', leads: 1, clients: 1 }),
    ]);
    expect(body.packages).toEqual([
      expect.objectContaining({ package_key: 'premium_reco', visits: 4, leads: 6, clients: 1 }),
    ]);
  });

  it('names the marketers and their teams from the directory; an id it does not know stays an id alone', async () => {
    const test = await start();
    await withProgramme(test);
    const person = (marketing_id: string, name: string, team_leader_id: string | null = null) => ({
      marketing_id,
      name,
      team_leader_id,
      email: null,
      active: true,
    });
    // 42 and 43 in 1007's team; 1007, their leader, brings no lead; 7 is not in the directory.
    await test.services.people.put(
      [
        person('42', 'سلمى العتيبي', '1007'),
        person('43', 'خالد', '1007'),
        person('1007', 'نورة القحطاني'),
      ],
      clock.now,
    );
    const body = (await test.stats(await token())).json<ProgramStats>();
    expect(
      body.marketers.map(({ marketing_id, name, team_leader_id }) => [
        marketing_id,
        name,
        team_leader_id,
      ]),
    ).toEqual([
      ['42', 'سلمى العتيبي', '1007'],
      [null, null, null],
      ['7', null, null],
      ['43', 'خالد', '1007'],
    ]);
    const rows = new Map(body.marketers.map((row) => [row.marketing_id, row]));
    /** A team's numbers as its members' rows added up (the rates of the sums). */
    const membersSum = (members: string[]) => {
      const sumOf = (
        column: 'visits' | 'unique_visitors' | 'leads' | 'clients' | 'flagged' | 'not_credited',
      ) => members.reduce((total, id) => total + rows.get(id)![column], 0);
      return {
        visits: sumOf('visits'),
        unique_visitors: sumOf('unique_visitors'),
        leads: sumOf('leads'),
        clients: sumOf('clients'),
        flagged: sumOf('flagged'),
        not_credited: sumOf('not_credited'),
      };
    };
    expect(body.teams).toEqual([
      {
        team_leader_id: '1007',
        name: 'نورة القحطاني',
        members: ['42', '43'],
        visits: 3,
        unique_visitors: 3,
        leads: 4,
        clients: 1,
        conversion_percent: 133.3,
        client_percent: 25,
        flagged: 0,
        not_credited: 0,
      },
    ]);
    expect(body.teams[0]).toMatchObject(membersSum(['42', '43']));

    // The platform moves 43 to a leader it has not sent yet, and names 7, in no team: the next
    // answer shows it (the directory is read with the numbers, never kept in memory).
    await test.services.people.put(
      [person('43', 'خالد', '2000'), person('7', 'ريم الشهري')],
      clock.now,
    );
    const moved = (await test.stats(await token())).json<ProgramStats>();
    expect(
      moved.teams.map(({ team_leader_id, name, members }) => [team_leader_id, name, members]),
    ).toEqual([
      ['1007', 'نورة القحطاني', ['42']],
      ['2000', null, ['43']],
    ]);
    for (const team of moved.teams) {
      const members = new Map(moved.marketers.map((row) => [row.marketing_id, row]));
      for (const column of ['visits', 'leads', 'clients', 'flagged', 'not_credited'] as const) {
        expect(team[column], `${team.team_leader_id} ${column}`).toBe(
          team.members.reduce((total, id) => total + members.get(id)![column], 0),
        );
      }
    }
    // The general links and 7, in no team, are in none.
    expect(moved.teams.flatMap((team) => team.members)).toEqual(['42', '43']);
    expect(moved.marketers.find((row) => row.marketing_id === '7')).toMatchObject({
      name: 'ريم الشهري',
      team_leader_id: null,
    });
  });

  it('agrees with npm run report for the same period, and still does after a retention purge', async () => {
    const test = await start();
    await withProgramme(test);
    const agree = async () => {
      const body = (await test.stats(await token())).json<ProgramStats>();
      const links = await report(test.databaseUrl, body.from, 'link');
      for (const column of ['visits', 'unique_visitors', 'leads', 'contacted', 'clients', 'lost']) {
        expect(body.totals[column as keyof ProgramStats['totals']], column).toBe(
          sum(links, column),
        );
      }
      const campaigns = await report(test.databaseUrl, body.from, 'campaign');
      const named = body.campaigns.map((row) => [
        row.other ? '(other)' : row.utm_campaign,
        row.leads,
      ]);
      expect(named.sort()).toEqual(
        campaigns.map((row) => [row.utm_campaign || null, Number(row.leads)]).sort(),
      );
      return body;
    };
    const before = await agree();
    const { db } = test.services.database;
    const keptRamadan = () =>
      db.selectFrom('count_rollups').select('day').where('utm_campaign', '=', 'ramadan').execute();
    // Kept after the answer, for the next ones.
    await expect.poll(asking(test, keptRamadan)).toEqual([{ day: '2026-11-24' }]);
    // Everything before the 25th goes, as RETENTION_DAYS would delete it.
    const deleted = await deleteSubmissions(test.services.database, {
      createdBefore: '2026-11-25T00:00:00.000Z',
    });
    expect(deleted.ids.length).toBeGreaterThan(0);
    // One person's campaign is no longer named in what was kept of their days, either.
    expect(await keptRamadan()).toEqual([]);
    // The same numbers; ramadan, one person's campaign, is now counted as other (security.md).
    const after = await agree();
    const { campaigns, ...rest } = after;
    const { campaigns: named, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
    expect(named.map((row) => row.utm_campaign)).toEqual([null, 'ramadan']);
    expect(campaigns.map((row) => [row.other, row.leads, row.clients])).toEqual([
      [false, 5, 0],
      [true, 1, 1],
    ]);
  });

  /** Marketer 43's lead of the 24th, lost, becomes a client (as the CRM would say). */
  async function marketer43BecomesClient(test: Awaited<ReturnType<typeof start>>) {
    const lead = await test.services.database.db
      .selectFrom('registrations')
      .select('id')
      .where('marketing_id', '=', '43')
      .executeTakeFirstOrThrow();
    await test.services.leadStatuses.change({ id: lead.id }, 'client', 'api', clock.now);
    return lead;
  }

  /**
   * Reads `read` after asking for the period's numbers, as the programme's page would: an answer
   * that finds a day not kept as it is now wakes the keeper, so a poll of it never waits for the
   * keeper's timer (every 5 s, as long as a poll's wait).
   */
  function asking<T>(
    test: Awaited<ReturnType<typeof start>>,
    read: () => Promise<T>,
    query?: string,
  ) {
    return async () => {
      await test.stats(await token(), query);
      return read();
    };
  }

  /** Waits until the keeper has kept these days by the page's four keys, as they are now. */
  async function keptAsNow(test: Awaited<ReturnType<typeof start>>, days: string[]) {
    const { db } = test.services.database;
    await expect
      .poll(
        asking(test, async () => {
          const changes = await db.selectFrom('count_day_changes').selectAll().execute();
          const marks = await db
            .selectFrom('count_rollup_days')
            .selectAll()
            .where('day', 'in', days)
            .where('by', 'not like', '% weekly')
            .where('version', '<>', '')
            .execute();
          return marks.filter(
            (mark) =>
              Number(mark.changes) ===
              Number(changes.find((change) => change.day === mark.day)?.changes ?? 0),
          ).length;
        }),
      )
      .toBe(days.length * 4);
  }

  it('keeps the finished days in the background, and counts a day again after any write to it: a status, a decision, a late sign-up, an erasure', async () => {
    const test = await start();
    await withProgramme(test);
    const { db } = test.services.database;
    const numbers = async () => (await test.stats(await token())).json<ProgramStats>();
    // Answered at once, before any day is kept: counted live.
    const first = await numbers();
    await keptAsNow(test, finished);
    expect(await numbers()).toEqual(first);
    // Read as kept, not counted again: a kept count altered by hand shows.
    await db
      .updateTable('count_rollups')
      .set((eb) => ({ leads: eb('leads', '+', 100) }))
      .where('by', '=', 'day')
      .where('day', '=', '2026-11-24')
      .execute();
    expect((await numbers()).totals.leads).toBe(first.totals.leads + 100);

    // Marketer 43's lead of the 24th becomes a client: that day is counted again at once.
    const lead = await marketer43BecomesClient(test);
    const changed = await numbers();
    expect(changed.totals).toMatchObject({
      leads: first.totals.leads,
      clients: first.totals.clients + 1,
      lost: first.totals.lost - 1,
    });
    // Not credited: out of the leads and the clients of its day.
    await test.services.leadReviews.decide(
      lead.id,
      { credited: false, note: '' },
      'manager-1',
      clock.now,
    );
    const decided = await numbers();
    expect(decided.totals).toMatchObject({
      leads: first.totals.leads - 1,
      clients: first.totals.clients,
      not_credited: 1,
    });
    expect(decided.marketers.find((row) => row.marketing_id === '43')).toMatchObject({
      leads: 0,
      not_credited: 1,
    });
    // A sign-up stamped with the 25th that commits once the 25th is kept (an instance whose
    // clock lags, a batch that waited past midnight): its day is counted again.
    await keptAsNow(test, finished);
    const now = clock.now;
    clock.now = new Date('2026-11-25T23:59:59Z');
    await test.services.registrations.register(
      registrationSchema.parse(
        buildPayload({ name: 'ليلى', email: '', phone: '966500000999' }, { marketingId: '44' }),
      ),
      clock.now,
      'api',
    );
    clock.now = now;
    const late = await numbers();
    expect(late.totals.leads).toBe(decided.totals.leads + 1);
    expect(late.marketers.find((row) => row.marketing_id === '44')?.leads).toBe(1);
    // Erased: marketer 7's lead of the 20th; its day is counted again, the rest read as kept.
    await keptAsNow(test, finished);
    const marketer7 = await db
      .selectFrom('registrations')
      .select('phone')
      .where('marketing_id', '=', '7')
      .executeTakeFirstOrThrow();
    await db
      .updateTable('count_rollups')
      .set((eb) => ({ leads: eb('leads', '+', 100) }))
      .where('by', '=', 'day')
      .where('day', '=', '2026-11-24')
      .execute();
    await deleteSubmissions(test.services.database, { phone: marketer7.phone });
    const erased = await numbers();
    expect(erased.totals.leads).toBe(late.totals.leads + 100);
    // Every day counted afresh: the same.
    await db.deleteFrom('count_rollup_days').execute();
    expect((await numbers()).totals.leads).toBe(late.totals.leads);
  });

  it('forgets only the days an erasure changed, and at once the kept rows of a campaign it renames', async () => {
    const test = await start();
    await withProgramme(test);
    const { db } = test.services.database;
    await keptAsNow(test, finished);
    const marks = () =>
      db
        .selectFrom('count_rollup_days')
        .select(['by', 'day', 'changes'])
        .where('by', 'not like', '% weekly')
        .where('day', 'in', finished)
        .orderBy('by')
        .orderBy('day')
        .execute();
    const before = await marks();
    // The campaign "ramadan" is one person's (marketer 42's lead of the 24th).
    const campaignLead = await db
      .selectFrom('registrations')
      .select('phone')
      .where('utm_campaign', '=', 'ramadan')
      .executeTakeFirstOrThrow();
    await deleteSubmissions(test.services.database, { phone: campaignLead.phone });
    const named = await db
      .selectFrom('count_rollups')
      .select('day')
      .where('utm_campaign', '=', 'ramadan')
      .execute();
    expect(named).toEqual([]);
    // Only the 24th is out of date: its lead and its campaign's visits were that day. The
    // app's keeper may have kept it again meanwhile (its marks then moved); no other day moved.
    const after = await marks();
    const moved = after.filter(
      (mark, index) => Number(mark.changes) !== Number(before[index]!.changes),
    );
    expect(before.map((mark) => [mark.by, mark.day])).toEqual(
      after.map((mark) => [mark.by, mark.day]),
    );
    const changes = await db.selectFrom('count_day_changes').selectAll().execute();
    expect(changes.map((change) => change.day).filter((day) => finished.includes(day))).toContain(
      '2026-11-24',
    );
    const stale = after.filter(
      (mark) =>
        Number(mark.changes) !==
        Number(changes.find((change) => change.day === mark.day)?.changes ?? 0),
    );
    expect([...new Set([...moved, ...stale].map((mark) => mark.day))]).toEqual(['2026-11-24']);
  });

  it('after a day’s change counts that day live and reads the other finished days as kept', async () => {
    const test = await start();
    await withProgramme(test);
    const { db } = test.services.database;
    const numbers = async () => (await test.stats(await token())).json<ProgramStats>();
    const first = await numbers();
    await keptAsNow(test, finished);
    // The 20th as kept, altered by hand so that a read of it shows.
    await db
      .updateTable('count_rollups')
      .set((eb) => ({ leads: eb('leads', '+', 100) }))
      .where('day', '=', '2026-11-20')
      .where('by', 'not like', '% weekly')
      .execute();
    await marketer43BecomesClient(test);
    // The very next answer: the 24th counted anew (a client more, a lost less), the 20th read.
    const changed = await numbers();
    expect(changed.totals).toMatchObject({
      leads: first.totals.leads + 100,
      clients: first.totals.clients + 1,
      lost: first.totals.lost - 1,
    });
    expect(changed.marketers.find((row) => row.marketing_id === '7')?.leads).toBe(101);
    expect(changed.marketers.find((row) => row.marketing_id === '43')?.clients).toBe(1);
    // Undone by hand, for the check every test ends with.
    await db.deleteFrom('count_rollup_days').where('day', '=', '2026-11-20').execute();
  });

  it('keeps a finished week as its seven days added up, and reads its days again after a change in it', async () => {
    const test = await start();
    await withProgramme(test);
    const { db } = test.services.database;
    const marketer7 = async () =>
      (await (await test.stats(await token(), '?days=90')).json<ProgramStats>()).marketers.find(
        (row) => row.marketing_id === '7',
      );
    expect(await marketer7()).toMatchObject({ leads: 1, clients: 0 });
    // The period's whole weeks, Monday to Sunday: 31 August to 22 November, twelve.
    const weeks = () =>
      db
        .selectFrom('count_rollup_days')
        .select(['day', 'changes'])
        .where('by', '=', 'marketing_id weekly')
        .orderBy('day')
        .execute();
    await expect
      .poll(asking(test, async () => (await weeks()).at(-1)?.day, '?days=90'))
      .toBe('2026-11-16');
    // Marketer 7's lead of the 20th, as kept: its week's row is read, and its day's is not.
    const alter = (by: string, day: string) =>
      db
        .updateTable('count_rollups')
        .set((eb) => ({ leads: eb('leads', '+', 100) }))
        .where('by', '=', by)
        .where('day', '=', day)
        .where('marketing_id', '=', '7')
        .execute();
    await alter('marketing_id weekly', '2026-11-16');
    await alter('marketing_id', '2026-11-20');
    expect(await marketer7()).toMatchObject({ leads: 101, clients: 0 });
    // A change on the 20th: the week's days are read again, the 20th live, and the week is kept
    // again from them.
    const lead = await db
      .selectFrom('registrations')
      .select('id')
      .where('marketing_id', '=', '7')
      .executeTakeFirstOrThrow();
    await test.services.leadStatuses.change(lead, 'client', 'api', clock.now);
    expect(await marketer7()).toMatchObject({ leads: 1, clients: 1 });
    // Kept again once its mark is as of its days' changes now.
    const weekChanges = async () =>
      (
        await db
          .selectFrom('count_day_changes')
          .select('changes')
          .where('day', '>=', '2026-11-16')
          .where('day', '<', '2026-11-23')
          .execute()
      ).reduce((sum, row) => sum + Number(row.changes), 0);
    await expect
      .poll(asking(test, async () => (await weeks()).at(-1)?.changes, '?days=90'))
      .toBe(await weekChanges());
    expect(await marketer7()).toMatchObject({ leads: 1, clients: 1 });
    await alter('marketing_id weekly', '2026-11-16');
    expect(await marketer7()).toMatchObject({ leads: 101, clients: 1 });
    // Undone by hand, for the check every test ends with.
    await db.deleteFrom('count_rollup_days').where('by', '=', 'marketing_id weekly').execute();
  });

  it('answers the totals of the same number of days right before the period, counted alike', async () => {
    const test = await start();
    // Before the 7 days that end on the 26th: marketer 9's two leads on the 16th, one a client,
    // and a visit to its link on the 18th.
    clock.now = new Date('2026-11-16T10:00:00Z');
    for (const phone of ['966500000091', '966500000092']) {
      await test.services.registrations.register(
        registrationSchema.parse(
          buildPayload({ name: 'سارة', email: '', phone }, { marketingId: '9' }),
        ),
        clock.now,
        'api',
      );
    }
    const lead = await test.services.database.db
      .selectFrom('registrations')
      .select('id')
      .where('marketing_id', '=', '9')
      .executeTakeFirstOrThrow();
    await test.services.leadStatuses.change(lead, 'client', 'api', clock.now);
    clock.now = new Date('2026-11-18T10:00:00Z');
    await test.app.inject({
      url: '/register/register-client/premium_reco/9',
      remoteAddress: '198.51.100.7',
      headers: { 'user-agent': agent },
    });
    await new Promise((resolve) => setImmediate(resolve));
    await test.services.visits.flush();
    clock.now = new Date('2026-11-20T12:00:00Z');
    await withProgramme(test);
    const admin = await token();

    const week = (await test.stats(admin, '?days=7')).json<ProgramStats>();
    expect(week.previous).toEqual({
      from: '2026-11-13',
      to: '2026-11-19',
      totals: {
        visits: 1,
        unique_visitors: 1,
        leads: 2,
        contacted: 0,
        qualified: 0,
        clients: 1,
        lost: 0,
        conversion_percent: 200,
        client_percent: 50,
        flagged: 0,
        not_credited: 0,
      },
    });
    // The previous period of one is the period itself a week earlier, counted the same way.
    const before = (await test.stats(admin, '?from=2026-11-13&to=2026-11-19')).json<ProgramStats>();
    expect(before.totals).toEqual(week.previous.totals);
    expect(before.previous).toMatchObject({ from: '2026-11-06', to: '2026-11-12' });
    expect(before.previous.totals).toMatchObject({ visits: 0, leads: 0, clients: 0 });
    // Today against yesterday: the 26th's one lead, the 25th's none.
    const today = (await test.stats(admin, '?days=1')).json<ProgramStats>();
    expect(today).toMatchObject({ days: 1, from: '2026-11-26', to: '2026-11-26' });
    expect(today.previous).toMatchObject({ from: '2026-11-25', to: '2026-11-25' });
    expect(today.previous.totals).toMatchObject({ visits: 0, leads: 0 });
    expect(today.totals).toMatchObject({ visits: 1, leads: 1 });
  });

  it('answers a range of days, both ends included, and leaves out the days after it', async () => {
    const test = await start();
    await withProgramme(test);
    const admin = await token();
    const range = (await test.stats(admin, '?from=2026-11-21&to=2026-11-24')).json<ProgramStats>();
    expect(range).toMatchObject({ days: 4, from: '2026-11-21', to: '2026-11-24' });
    expect(range.by_day.map((day) => day.date)).toEqual([
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
    ]);
    // The 24th's four leads and three visits; not the 26th's lead (after it) nor the 20th's.
    expect(range.totals).toMatchObject({ visits: 3, leads: 4, clients: 1, lost: 1 });
    expect(range.marketers.map((row) => [row.marketing_id, row.leads])).toEqual([
      ['42', 2],
      ['43', 1],
      [null, 1],
    ]);
    expect(range.previous).toMatchObject({ from: '2026-11-17', to: '2026-11-20' });
    expect(range.previous.totals).toMatchObject({ leads: 1, visits: 0 });
    // The same days counted again once kept: the same answer.
    await keptAsNow(test, finished);
    expect((await test.stats(admin, '?from=2026-11-21&to=2026-11-24')).json()).toEqual(range);
    // A range that ends today is the period that ends today; 366 days is the longest.
    const last = (await test.stats(admin, '?from=2026-11-20&to=2026-11-26')).json<ProgramStats>();
    expect(last).toEqual((await test.stats(admin, '?days=7')).json());
    const year = await test.stats(admin, '?from=2025-11-26&to=2026-11-26');
    expect(year.statusCode).toBe(200);
    expect(year.json<ProgramStats>()).toMatchObject({ days: 366, totals: { leads: 6 } });
    expect(year.json<ProgramStats>().by_day).toHaveLength(366);
  });

  it('refuses a range it cannot show, each with its reason in Arabic', async () => {
    const { stats } = await start();
    clock.now = new Date('2026-11-26T08:00:00Z');
    const admin = await token();
    const refusals = {
      '?from=2026-11-24&to=2026-11-20': arProgram.errorRange.order,
      '?from=2026-02-30&to=2026-03-02': arProgram.errorRange.dates,
      '?from=24-11-2026&to=2026-11-25': arProgram.errorRange.dates,
      '?from=2026-11-20': arProgram.errorRange.dates,
      '?to=2026-11-20': arProgram.errorRange.dates,
      '?from=2025-11-24&to=2026-11-25': arProgram.errorRange.length,
      '?from=2026-11-20&to=2026-11-27': arProgram.errorRange.future,
      '?days=7&from=2026-11-20&to=2026-11-24': arStats.errorPeriod,
      '?from=2026-11-20&from=2026-11-21&to=2026-11-24': arStats.errorPeriod,
    };
    for (const [query, error] of Object.entries(refusals)) {
      const response = await stats(admin, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual({ error });
    }
    expect(arProgram.errorRange.length).toContain(String(longestRange));
  });

  it('keeps the days a range and its previous period reach, 700 days back, and reads them as kept', async () => {
    const test = await start();
    const { db } = test.services.database;
    // 700 days before the 26th of November 2026: marketer 9's two leads, one a client.
    const longAgo = '2024-12-26';
    clock.now = new Date(`${longAgo}T09:00:00Z`);
    for (const phone of ['966500000091', '966500000092']) {
      await test.services.registrations.register(
        registrationSchema.parse(
          buildPayload({ name: 'سارة', email: '', phone }, { marketingId: '9' }),
        ),
        clock.now,
        'api',
      );
    }
    const lead = await db
      .selectFrom('registrations')
      .select('id')
      .where('marketing_id', '=', '9')
      .executeTakeFirstOrThrow();
    await test.services.leadStatuses.change(lead, 'client', 'api', clock.now);
    clock.now = new Date('2026-11-26T08:00:00Z');
    const admin = await token();
    const around = '?from=2024-12-20&to=2025-01-10';
    const numbers = async (query: string) => (await test.stats(admin, query)).json<ProgramStats>();
    const live = await numbers(around);
    expect(live.totals).toMatchObject({ leads: 2, clients: 1 });
    expect(live.marketers).toEqual([expect.objectContaining({ marketing_id: '9', leads: 2 })]);
    expect(live.by_day.find((day) => day.date === longAgo)).toMatchObject({ leads: 2, clients: 1 });
    // The year that ends today: that day is in its previous period.
    const year = await numbers('?from=2025-11-26&to=2026-11-26');
    expect(year.previous).toMatchObject({ from: '2024-11-25', to: '2025-11-25' });
    expect(year.previous.totals).toMatchObject({ leads: 2, clients: 1 });

    // Kept in the background: its day by every key, and its week (Monday the 23rd) by the keys
    // that are not the day.
    const monday = '2024-12-23';
    const keptWeek = async (by: string) =>
      (
        await db
          .selectFrom('count_rollup_days')
          .select('version')
          .where('by', '=', by)
          .where('day', '=', monday)
          .executeTakeFirst()
      )?.version ?? '';
    await expect.poll(() => keptWeek('marketing_id weekly'), { timeout: 20_000 }).not.toBe('');
    await expect.poll(() => keptWeek('package_key weekly'), { timeout: 20_000 }).not.toBe('');
    expect(await numbers(around)).toEqual(live);
    // Read as kept: the week's rows, altered by hand, show (the marketers by week, the previous
    // period's totals by package).
    const alter = (by: string) =>
      db
        .updateTable('count_rollups')
        .set((eb) => ({ leads: eb('leads', '+', 100) }))
        .where('by', '=', by)
        .where('day', '=', monday)
        .execute();
    await alter('marketing_id weekly');
    expect((await numbers(around)).marketers[0]).toMatchObject({ marketing_id: '9', leads: 102 });
    await alter('package_key weekly');
    expect((await numbers('?from=2025-11-26&to=2026-11-26')).previous.totals.leads).toBe(102);
    // Undone by hand, for the check every test ends with.
    await db.deleteFrom('count_rollup_days').where('day', '=', monday).execute();
    expect((await numbers(around)).marketers[0]).toMatchObject({ leads: 2 });
  });

  it('names a campaign past a link’s limit "other", with null fields', async () => {
    const test = await start();
    clock.now = new Date('2026-11-26T08:00:00Z');
    for (let i = 0; i < 21; i += 1) {
      await test.services.registrations.register(
        registrationSchema.parse(
          buildPayload(
            { name: 'سارة', email: '', phone: `9665000001${String(i).padStart(2, '0')}` },
            { marketingId: '42' },
            { utm_source: 'ads', utm_campaign: `c${String(i).padStart(2, '0')}` },
          ),
        ),
        clock.now,
        'api',
      );
    }
    const { campaigns } = (await test.stats(await token(), '?days=1')).json<ProgramStats>();
    expect(campaigns).toHaveLength(21);
    expect(campaigns.filter((row) => row.other)).toEqual([
      expect.objectContaining({ utm_source: null, utm_campaign: null, leads: 1 }),
    ]);
    expect(JSON.stringify(campaigns)).not.toContain(otherCampaign);
  });

  it('refuses every other caller as /api/marketer/stats does: 401, 403, 400, 429', async () => {
    const { stats } = await start();
    for (const bearer of [undefined, 'not.a.token', await token({ exp: 1 })]) {
      const response = await stats(bearer);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: arStats.errorSignIn });
    }
    for (const role of ['marketing', 'team_leader_marketing', 'Admin', undefined]) {
      const response = await stats(await token({ role }));
      expect(response.statusCode, String(role)).toBe(403);
      expect(response.json()).toEqual({ error: ar.errorNotAuthorized });
    }
    for (const query of ['?days=5', '?days=all', '?days=7&days=30']) {
      const response = await stats(await token(), query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toEqual({ error: arStats.errorPeriod });
    }
    const admin = await token();
    for (let i = 0; i < 30; i += 1) expect((await stats(admin)).statusCode).toBe(200);
    const limited = await stats(admin);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: ar.errorTooManyRequests });
    // Another manager is limited apart.
    expect((await stats(await token({ sub: 'manager-2' }))).statusCode).toBe(200);
  });

  it('serves the roles PROGRAM_ROLES names, and only them', async () => {
    const { stats } = await start({
      MARKETER_AUTH_SECRET: secret,
      PROGRAM_ROLES: 'marketing_manager,owner',
    });
    expect((await stats(await token({ role: 'marketing_manager' }))).statusCode).toBe(200);
    expect((await stats(await token({ role: 'owner' }))).statusCode).toBe(200);
    expect((await stats(await token({ role: 'admin' }))).statusCode).toBe(403);
  });

  it('still gives a marketer their own numbers, and not the programme’s', async () => {
    const { app } = await start();
    const bearer = await token({ role: 'marketing', sub: '42' });
    const get = (path: string) =>
      app.inject({ url: path, headers: { authorization: `Bearer ${bearer}` } });
    expect((await get('/api/marketer/stats')).statusCode).toBe(200);
    expect((await get(url)).statusCode).toBe(403);
  });

  it('is off without MARKETER_AUTH_*: the path is a 404 like any other', async () => {
    const { stats } = await start({});
    const response = await stats(await token());
    expect(response.statusCode).toBe(404);
  });
});
