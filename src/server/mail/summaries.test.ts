import { expect, it, onTestFinished } from 'vitest';
import type { LeadStatus } from '../../domain/lead-status';
import type { MarketerStats } from '../../domain/marketer-stats';
import type { MarketerWeekMail, ProgramWeekMail, WeekNumbers } from '../../domain/notifications';
import type { ProgramMarketerStats } from '../../domain/program-marketer';
import type { ProgramStats } from '../../domain/program-stats';
import type { ReviewList } from '../../domain/lead-review';
import { buildPayload, registrationSchema } from '../../domain/registration';
import { e2eMarketerAuthSecret, marketerToken } from '../../../testing/marketer-auth';
import { subscribe } from '../../../testing/mail-subscribers';
import {
  buildTestApp,
  describeOnBackends,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { startSmtpRelay, type TestRelay } from '../../../testing/smtp-relay';
import { summariesCommand } from '../cli/summaries';
import { loadConfig } from '../env';
import { mailLinks } from './mail-links';
import {
  claimRun,
  reviewDigests,
  sendReviewDigest,
  sendWeekly,
  staleRunMs,
  weeklySummaries,
  type SummariesOptions,
  type WeeklySummary,
} from './summaries';

// Issue 49: each week's summaries and each day's review digest, with the pages' numbers.

const week = { from: '2026-11-22', to: '2026-11-28' };
const publicUrl = 'https://tasjeel.example';
const mailEnv = {
  MAIL_FROM: '"تسجيل" <no-reply@tasjeel.example>',
  PUBLIC_URL: publicUrl,
  MAIL_RETRY_DELAYS: '50ms*100',
};
const agent = 'Mozilla/5.0 (Linux; Android 14; SM-A546E) AppleWebKit/537.36 Chrome/126.0 Mobile';
// Sunday, before the summaries' time (08:00 in Riyadh, 05:00 UTC) and the digest's.
const beforeTheirTime = new Date('2026-11-29T01:00:00Z');

/** An app with the programme's pages; with e-mail through `relay` when given. */
async function start(backend: TestBackend, relay?: TestRelay, env: Record<string, string> = {}) {
  const clock = { now: new Date('2026-11-17T12:00:00Z') };
  const test = await buildTestApp(
    backend,
    {
      MARKETER_AUTH_SECRET: e2eMarketerAuthSecret,
      ...(relay === undefined ? {} : { SMTP_URL: relay.url, ...mailEnv }),
      ...env,
    },
    { now: () => clock.now, mailSending: { pollMs: 20 }, summariesIntervalMs: 20 },
  );
  const options: SummariesOptions = {
    database: test.services.database,
    links: test.services.mailLinks ?? mailLinks(publicUrl, loadConfig({}).brand),
    leadReviews: test.services.leadReviews,
  };
  const get = async <T>(url: string, token: string) => {
    const response = await test.app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(200);
    return response.json<T>();
  };
  const outbox = () =>
    test.services.database.db
      .selectFrom('mail_outbox')
      .select(['kind', 'recipient', 'dedupe_key', 'status', 'message_id'])
      .orderBy('recipient')
      .orderBy('kind')
      .execute();
  return { ...test, clock, options, get, outbox };
}
type Test = Awaited<ReturnType<typeof start>>;

/**
 * The programme of two weeks. The directory: 42 leads a team of 43 and 44 (46 was one of it,
 * inactive now). The week before (the 17th): 42 one lead, a client; 43 one lead. The week (the
 * 24th): three visitors on 42's link, 42 two leads (a client through the campaign "ramadan")
 * and 43 one (a client); 45 two clients through "eid", and one lead not credited, a client too;
 * 7 three clients; on the 26th 42 one more lead and a general link's lead.
 */
async function withProgramme(test: Test) {
  const { app, services, clock } = test;
  await services.people.put(
    [
      { marketing_id: '42', name: 'ليلى', team_leader_id: '42', email: null, active: true },
      { marketing_id: '43', name: 'سامي', team_leader_id: '42', email: null, active: true },
      { marketing_id: '44', name: 'نور', team_leader_id: '42', email: null, active: true },
      { marketing_id: '46', name: 'هند', team_leader_id: '42', email: null, active: false },
    ],
    clock.now,
  );
  let phones = 0;
  const signUp = async (marketingId?: string, campaign?: string) =>
    (
      await services.registrations.register(
        registrationSchema.parse(
          buildPayload(
            { name: 'سارة', email: '', phone: `96650000${String(++phones).padStart(4, '0')}` },
            { packageName: 'premium_reco', marketingId },
            campaign === undefined ? {} : { utm_source: 'ads', utm_campaign: campaign },
          ),
        ),
        clock.now,
        'api',
      )
    ).id;
  const outcome = (id: string, status: LeadStatus) =>
    services.leadStatuses.change({ id }, status, 'api', clock.now);
  const visit = async (path: string, remoteAddress: string) => {
    await app.inject({ url: path, remoteAddress, headers: { 'user-agent': agent } });
    await new Promise((resolve) => setImmediate(resolve));
    await services.visits.flush();
  };

  await visit('/register/register-client/premium_reco/42', '198.51.100.1');
  await outcome(await signUp('42'), 'client');
  await signUp('43');
  clock.now = new Date('2026-11-24T12:00:00Z');
  for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
    await visit('/register/register-client/premium_reco/42', address);
  }
  await outcome(await signUp('42', 'ramadan'), 'client');
  await signUp('42');
  await outcome(await signUp('43'), 'client');
  for (let n = 0; n < 2; n++) await outcome(await signUp('45', 'eid'), 'client');
  const refused = await signUp('45', 'eid');
  await services.leadReviews.decide(refused, { credited: false, note: '' }, 'manager-1', clock.now);
  await outcome(refused, 'client');
  for (let n = 0; n < 3; n++) await outcome(await signUp('7'), 'client');
  clock.now = new Date('2026-11-26T08:00:00Z');
  await signUp('42');
  await signUp();
  clock.now = beforeTheirTime;
}

/** The people who asked for the weekly summary, and one who asked for the digest alone. */
async function withSubscribers(test: Test) {
  const { database } = test.services;
  return {
    leader: await subscribe(database, {
      subject: '42',
      audience: 'team_leader',
      weekly_summary: 1,
    }),
    marketer: await subscribe(database, { subject: '43', audience: 'marketer', weekly_summary: 1 }),
    idle: await subscribe(database, { subject: '50', audience: 'marketer', weekly_summary: 1 }),
    manager: await subscribe(database, {
      subject: 'manager-1',
      audience: 'program',
      weekly_summary: 1,
    }),
    reviewer: await subscribe(database, {
      subject: 'manager-2',
      audience: 'program',
      review_digest: 1,
    }),
    // Asked, never confirmed: nothing is sent.
    unconfirmed: await subscribe(database, {
      subject: '44',
      audience: 'marketer',
      email: null,
      weekly_summary: 1,
    }),
  };
}

const numbersOf = (totals: WeekNumbers): WeekNumbers => ({
  visits: totals.visits,
  unique_visitors: totals.unique_visitors,
  leads: totals.leads,
  clients: totals.clients,
  conversion_percent: totals.conversion_percent,
});

function summaryOf(summaries: WeeklySummary[], subject: string) {
  const summary = summaries.find((one) => one.subscriber.subject === subject);
  expect(summary).toBeDefined();
  return summary!.mail;
}

describeOnBackends('the weekly summaries on $name', (backend) => {
  it("gives a marketer and a team leader their week's numbers as their pages answer them for those days", async () => {
    const test = await start(backend);
    await withProgramme(test);
    await withSubscribers(test);
    const summaries = await weeklySummaries(test.options, week, test.clock.now);
    expect(summaries.map((one) => one.subscriber.subject)).toEqual(['42', '43', '50', 'manager-1']);
    const admin = await marketerToken('manager-1', 'admin');
    // The programme's page of each marketer, for the week's days.
    const page = (id: string) =>
      test.get<ProgramMarketerStats>(
        `/api/program/marketers/${id}/stats?from=${week.from}&to=${week.to}`,
        admin,
      );
    const marketer = summaryOf(summaries, '43') as MarketerWeekMail;
    const page43 = await page('43');
    expect(marketer).toMatchObject({
      marketing_id: '43',
      name: 'سامي',
      week,
      numbers: numbersOf(page43.totals),
      previous: numbersOf(page43.previous.totals),
      pageUrl: `${publicUrl}/register/my-registration-link`,
    });
    expect(marketer.numbers).toMatchObject({ leads: 1, clients: 1 });
    expect(marketer.previous).toMatchObject({ leads: 1, clients: 0 });
    expect(marketer.team).toBeUndefined();

    const leader = summaryOf(summaries, '42') as MarketerWeekMail;
    const page42 = await page('42');
    expect(leader.numbers).toEqual(numbersOf(page42.totals));
    expect(leader.previous).toEqual(numbersOf(page42.previous.totals));
    expect(leader.numbers).toMatchObject({ visits: 3, unique_visitors: 3, leads: 3, clients: 1 });
    // The team the directory gives: its active members, not the leader.
    expect(leader.team!.members).toEqual([
      { marketing_id: '43', name: 'سامي', numbers: numbersOf(page43.totals) },
      { marketing_id: '44', name: 'نور', numbers: numbersOf((await page('44')).totals) },
    ]);

    // Their own pages, on the week's Saturday, for the last 7 days: the same numbers.
    test.clock.now = new Date('2026-11-28T20:00:00Z');
    const own = (id: string, role: string) =>
      marketerToken(id, role).then((token) =>
        test.get<MarketerStats>('/api/marketer/stats?days=7', token),
      );
    const own43 = await own('43', 'marketing');
    const own42 = await own('42', 'team_leader_marketing');
    for (const [mail, stats] of [
      [marketer, own43],
      [leader, own42],
    ] as const) {
      expect(mail.numbers).toEqual(numbersOf(stats.totals));
    }
    expect(own42.team!.map((member) => member.marketing_id)).toEqual(['43', '44']);
    const { visits, unique_visitors, leads, clients } = own42.team_totals!;
    expect(leader.team!.totals).toMatchObject({ visits, unique_visitors, leads, clients });
    expect(leader.team!.totals.clients).toBe(1);
    expect(leader.team!.previous).toMatchObject({ leads: 1, clients: 0 });
  });

  it('gives the programme its week as its page answers it, and the five marketers and campaigns with most clients', async () => {
    const test = await start(backend);
    await withProgramme(test);
    await withSubscribers(test);
    const summaries = await weeklySummaries(test.options, week, test.clock.now);
    const program = summaryOf(summaries, 'manager-1') as ProgramWeekMail;
    const stats = await test.get<ProgramStats>(
      `/api/program/stats?from=${week.from}&to=${week.to}`,
      await marketerToken('manager-1', 'admin'),
    );
    expect(program).toMatchObject({
      week,
      totals: numbersOf(stats.totals),
      previous: numbersOf(stats.previous.totals),
      pageUrl: `${publicUrl}/register/program`,
    });
    expect(program.totals).toMatchObject({ leads: 10, clients: 7 });
    expect(program.previous).toMatchObject({ leads: 2, clients: 1 });
    // Only those with clients, most first; the one not credited counts for none.
    expect(program.marketers).toEqual([
      { marketing_id: '7', name: null, clients: 3, leads: 3 },
      { marketing_id: '45', name: null, clients: 2, leads: 2 },
      { marketing_id: '42', name: 'ليلى', clients: 1, leads: 3 },
      { marketing_id: '43', name: 'سامي', clients: 1, leads: 1 },
    ]);
    expect(program.campaigns).toEqual([
      { utm_source: 'ads', utm_campaign: 'eid', clients: 2, leads: 2 },
      { utm_source: 'ads', utm_campaign: 'ramadan', clients: 1, leads: 1 },
    ]);
    for (const row of program.marketers) {
      expect(stats.marketers.find((one) => one.marketing_id === row.marketing_id)).toMatchObject(
        row,
      );
    }
  });

  it('sends a week with nothing in it too', async () => {
    const test = await start(backend);
    await withProgramme(test);
    await withSubscribers(test);
    const empty = { from: '2026-11-01', to: '2026-11-07' };
    const summaries = await weeklySummaries(test.options, empty, test.clock.now);
    const zero = { visits: 0, unique_visitors: 0, leads: 0, clients: 0, conversion_percent: null };
    expect(summaries).toHaveLength(4);
    expect(summaryOf(summaries, '50')).toMatchObject({ numbers: zero, previous: zero });
    expect(summaryOf(summaries, 'manager-1')).toMatchObject({
      totals: zero,
      marketers: [],
      campaigns: [],
    });
    expect(summaryOf(summaries, '42')).toMatchObject({
      team: { totals: zero, previous: zero },
    });
    expect((summaryOf(summaries, '42') as MarketerWeekMail).team!.members).toHaveLength(2);
  });

  it('queues each summary once, however many times the week is run, and the relay gets each once', async () => {
    const relay = await startSmtpRelay();
    onTestFinished(() => relay.close());
    const test = await start(backend, relay);
    await withProgramme(test);
    const people = await withSubscribers(test);

    expect(await sendWeekly(test.options, week, test.clock.now)).toEqual({
      run: 'claimed',
      queued: 4,
    });
    expect(await sendWeekly(test.options, week, test.clock.now)).toEqual({
      run: 'done',
      queued: 0,
    });
    // Run again on purpose (the command): nothing queued twice.
    expect(await sendWeekly(test.options, week, test.clock.now, true)).toEqual({
      run: 'claimed',
      queued: 0,
    });
    await expect
      .poll(async () => (await test.outbox()).map(({ status }) => status))
      .toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(
      (await test.outbox()).map(({ recipient, dedupe_key }) => [recipient, dedupe_key]),
    ).toEqual([
      ['42@people.example', '42:2026-11-22'],
      ['43@people.example', '43:2026-11-22'],
      ['50@people.example', '50:2026-11-22'],
      ['manager-1@people.example', 'manager-1:2026-11-22'],
    ]);
    expect(relay.accepted).toHaveLength(4);
    const marketer = relay.accepted.find(({ to }) => to[0] === '43@people.example')!.mail;
    expect(marketer.headers.get('feedback-id')).toBe('weekly:tasjeel');
    // As written, unfolded.
    const header = (name: string) =>
      marketer.headerLines
        .find(({ key }) => key === name)
        ?.line.replace(/\r?\n\s+/g, ' ')
        .replace(/^[^:]+:\s*/, '');
    expect(header('list-unsubscribe')).toBe(
      `<${publicUrl}/register/notifications/stop/weekly/${people.marketer.unsubscribe_token}>`,
    );
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
  });

  it('sends the week on Sunday at 08:00 Riyadh time, and two instances on one database send it once', async () => {
    const relay = await startSmtpRelay();
    onTestFinished(() => relay.close());
    const first = await start(backend, relay);
    await withProgramme(first);
    await withSubscribers(first);
    // The second instance on the first one's database, with the same clock.
    const other = await buildTestApp(
      backend,
      { MARKETER_AUTH_SECRET: e2eMarketerAuthSecret, SMTP_URL: relay.url, ...mailEnv },
      {
        now: () => first.clock.now,
        mailSending: { pollMs: 20 },
        summariesIntervalMs: 20,
        config: { database: loadConfig({ DATABASE_URL: first.databaseUrl }).database },
      },
    );
    await first.app.ready();
    await other.app.ready();
    // The runs of the week and of its Sunday's digest (the days before had theirs as the clock
    // moved through them, before anyone asked for e-mail).
    const runs = () =>
      first.services.database.db
        .selectFrom('mail_runs')
        .selectAll()
        .where('period', 'in', [week.from, '2026-11-29'])
        .execute();
    // Before its time (Sunday 01:00 UTC): not yet.
    expect(await runs()).toEqual([]);
    first.clock.now = new Date('2026-11-29T05:00:00Z');
    await expect
      .poll(async () =>
        (await runs())
          .map(({ kind, period, finished_at }) => [kind, period, finished_at !== null])
          .sort(),
      )
      .toEqual([
        ['review', '2026-11-29', true],
        ['weekly', '2026-11-22', true],
      ]);
    await expect
      .poll(async () => (await first.outbox()).map(({ status }) => status))
      .toEqual(['sent', 'sent', 'sent', 'sent']);
    const sent = (await first.outbox()).map(({ message_id }) => message_id);
    await expect.poll(() => relay.accepted.length).toBe(4);
    expect(relay.accepted.map(({ messageId }) => messageId).sort()).toEqual(sent.sort());
  });

  it('takes again a run whose instance stopped before it finished', async () => {
    const test = await start(backend);
    const { database } = test.services;
    const now = new Date('2026-11-29T06:00:00Z');
    const startedAt = (ms: number) => new Date(now.getTime() - ms).toISOString();
    await database.db
      .insertInto('mail_runs')
      .values([
        {
          kind: 'weekly',
          period: '2026-11-22',
          started_at: startedAt(5 * 60_000),
          finished_at: null,
        },
        {
          kind: 'weekly',
          period: '2026-11-15',
          started_at: startedAt(staleRunMs + 1),
          finished_at: null,
        },
        {
          kind: 'review',
          period: '2026-11-29',
          started_at: startedAt(staleRunMs + 1),
          finished_at: startedAt(staleRunMs),
        },
      ])
      .execute();
    expect(await claimRun(database, 'weekly', '2026-11-22', now)).toBe('running');
    expect(await claimRun(database, 'weekly', '2026-11-15', now)).toBe('claimed');
    // Taken by one instance: the next finds it running.
    expect(await claimRun(database, 'weekly', '2026-11-15', now)).toBe('running');
    expect(await claimRun(database, 'review', '2026-11-29', now)).toBe('done');
    expect(await claimRun(database, 'review', '2026-11-28', now)).toBe('claimed');
  });

  it('queues the review digest: how many await review and the oldest’s age, none when none does', async () => {
    const relay = await startSmtpRelay();
    onTestFinished(() => relay.close());
    // The schedule's digest later in the day: this test sends its own.
    const test = await start(backend, relay, {
      SUMMARIES_TIME_ZONE: 'UTC',
      WEEKLY_SUMMARY_AT: 'saturday 23:00',
      REVIEW_DIGEST_AT: '23:59',
    });
    await withProgramme(test);
    const { reviewer } = await withSubscribers(test);
    const { database } = test.services;
    const leads = await database.db
      .selectFrom('registrations')
      .select(['id', 'created_at'])
      .where('marketing_id', 'in', ['7', '43'])
      .orderBy('created_at')
      .execute();
    const flagged = [leads[0]!, leads.at(-1)!];
    await database.db
      .insertInto('lead_flags')
      .values(
        flagged.map(({ id }) => ({ registration_id: id, flag: 'fast' as const, other_id: null })),
      )
      .execute();
    const now = new Date('2026-11-29T05:00:00Z');
    test.clock.now = now;
    const digests = await reviewDigests(test.options, now);
    const list = await test.get<ReviewList>(
      '/api/program/review',
      await marketerToken('manager-2', 'admin'),
    );
    expect(digests).toEqual([
      {
        subscriber: expect.objectContaining({ subject: 'manager-2' }),
        mail: {
          awaiting: list.count,
          oldestDays: Math.floor(
            (now.getTime() - Date.parse(list.leads[0]!.created_at)) / 86_400_000,
          ),
          listUrl: `${publicUrl}/register/program#review-heading`,
          unsubscribeUrl: `${publicUrl}/register/notifications/stop/review/${reviewer.unsubscribe_token}`,
        },
      },
    ]);
    expect(digests[0]!.mail).toMatchObject({ awaiting: 2, oldestDays: 11 });

    expect(await sendReviewDigest(test.options, '2026-11-29', now)).toEqual({
      run: 'claimed',
      queued: 1,
    });
    expect(await sendReviewDigest(test.options, '2026-11-29', now)).toEqual({
      run: 'done',
      queued: 0,
    });
    await expect.poll(() => relay.accepted.length).toBe(1);
    expect(relay.accepted[0]!.to).toEqual(['manager-2@people.example']);
    expect(relay.accepted[0]!.mail.headers.get('feedback-id')).toBe('review:tasjeel');

    // Everything decided: the next day, nothing.
    await test.services.leadReviews.decideAll(
      flagged.map(({ id }) => id),
      { credited: true, note: '' },
      'manager-2',
      now,
    );
    expect(await reviewDigests(test.options, now)).toEqual([]);
    expect(await sendReviewDigest(test.options, '2026-11-30', now)).toEqual({
      run: 'claimed',
      queued: 0,
    });
  });

  it('queues the summaries with `npm run tasjeel -- summaries send`, once', async () => {
    // The server that sends them is another's business (tests above): here, what is queued.
    const test = await start(backend);
    await withProgramme(test);
    await withSubscribers(test);
    const summaries = async (argv: string[], env: Record<string, string> = {}) => {
      let out = '';
      let err = '';
      const code = await summariesCommand.run(
        argv,
        { DATABASE_URL: test.databaseUrl, SMTP_URL: 'smtp://127.0.0.1:9', ...mailEnv, ...env },
        { out: (text) => (out += text), err: (text) => (err += text) },
      );
      return { code, out, err };
    };
    expect(await summaries(['send', '--week', '2026-11-22'])).toEqual({
      code: 0,
      out: '4 weekly summaries queued for 2026-11-22 to 2026-11-28\n',
      err: '',
    });
    expect((await summaries(['send', '--week', '2026-11-22'])).out).toBe(
      '0 weekly summaries queued for 2026-11-22 to 2026-11-28\n',
    );
    expect((await summaries(['review'])).out).toMatch(
      /^0 review e-mails queued for \d{4}-\d{2}-\d{2}\n$/,
    );
    expect((await test.outbox()).map(({ kind, dedupe_key }) => [kind, dedupe_key])).toEqual([
      ['weekly', '42:2026-11-22'],
      ['weekly', '43:2026-11-22'],
      ['weekly', '50:2026-11-22'],
      ['weekly', 'manager-1:2026-11-22'],
    ]);

    for (const [argv, env, why] of [
      [['send', '--week', '2026-11-23'], {}, /--week must be a Sunday/],
      [['send', '--week', '2999-01-06'], {}, /--week must be a week that has ended/],
      [['review', '--week', '2026-11-22'], {}, /--week goes with send/],
      [['send'], { PUBLIC_URL: '' }, /e-mail is off/],
      [['stop'], {}, /expected send or review/],
    ] as const) {
      const refused = await summaries([...argv], env);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(why);
    }
  });
});
