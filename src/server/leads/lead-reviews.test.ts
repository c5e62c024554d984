import { SignJWT, type JWTPayload } from 'jose';
import { expect, it, onTestFinished } from 'vitest';
import { arStats } from '../../domain/catalogue/marketer-stats';
import { arProgram, arReview } from '../../domain/catalogue/program';
import { ar } from '../../domain/catalogue/shared';
import type { LeadFlag, LeadReview, ReviewList, ReviewsRecorded } from '../../domain/lead-review';
import type { MarketerStats } from '../../domain/marketer-stats';
import type { ProgramStats } from '../../domain/program-stats';
import { buildPayload, registrationSchema } from '../../domain/registration';
import {
  buildTestApp,
  describeOnBackends,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { newWebhookSecret, startWebhookReceiver } from '../../../testing/webhook-receiver';
import { personCommand } from '../cli/person';
import { reportCommand } from '../cli/report';
import { deleteSubmissions } from '../registrations/personal-data';

// Issue 37: decisions on a lead's credit, and what they do to every count.

const secret = 'a-secret-the-platform-shares-with-tasjeel';

/** A token as the platform signs it: a programme admin's unless `claims` say otherwise. */
function token(claims: JWTPayload = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'manager-1', role: 'admin', iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(secret));
}

/** `npm run report -- --format csv --by link`, its rows as objects by marketer. */
async function reportRows(databaseUrl: string) {
  let csv = '';
  const code = await reportCommand.run(
    ['--format', 'csv', '--since', '2026-11-20'],
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

async function start(backend: TestBackend, env: Record<string, string> = {}) {
  const clock = { now: new Date('2026-11-26T08:00:00.000Z') };
  const test = await buildTestApp(
    backend,
    { MARKETER_AUTH_SECRET: secret, ...env },
    { now: () => clock.now, webhookDelivery: { pollMs: 20 } },
  );
  const { app, services } = test;
  let phones = 0;
  const signUp = async (marketingId?: string, phone?: string, email = '') =>
    (
      await services.registrations.register(
        registrationSchema.parse(
          buildPayload(
            {
              name: 'سارة',
              email,
              phone: phone ?? `9665000000${String(++phones).padStart(2, '0')}`,
            },
            { packageName: 'premium_reco', marketingId },
          ),
        ),
        clock.now,
        'api',
      )
    ).id;
  /** A flag as the sign-up's checks store it (the checks are registrations/flags.ts's). */
  // The checks flag some leads themselves (a phone through two marketers is contested).
  const flag = (id: string, name: LeadFlag, otherId: string | null = null) =>
    services.database.db
      .insertInto('lead_flags')
      .values({ registration_id: id, flag: name, other_id: otherId })
      .onConflict((oc) => oc.columns(['registration_id', 'flag']).doNothing())
      .execute();
  const review = async (id: string, payload: unknown, bearer?: string | null) =>
    app.inject({
      method: 'POST',
      url: `/api/program/leads/${encodeURIComponent(id)}/review`,
      headers: bearer === null ? {} : { authorization: `Bearer ${bearer ?? (await token())}` },
      payload: payload as Record<string, unknown>,
    });
  const get = async <Body>(url: string, bearer?: string) => {
    const response = await app.inject({
      url,
      headers: { authorization: `Bearer ${bearer ?? (await token())}` },
    });
    expect(response.statusCode, url).toBe(200);
    return response.json<Body>();
  };
  /** Marketer 42's numbers as each place shows them: their own, the programme's, the report's. */
  const numbers = async () => {
    const own = (
      await get<MarketerStats>(
        '/api/marketer/stats?days=7',
        await token({ sub: '42', role: 'marketing' }),
      )
    ).totals;
    const programme = (await get<ProgramStats>('/api/program/stats?days=7')).marketers.find(
      (row) => row.marketing_id === '42',
    );
    const report = (await reportRows(test.databaseUrl)).find((row) => row.marketing_id === '42');
    return {
      own: {
        leads: own.leads,
        clients: own.clients,
        awaiting_review: own.awaiting_review,
        not_credited: own.not_credited,
      },
      programme: {
        leads: programme?.leads,
        clients: programme?.clients,
        flagged: programme?.flagged,
        not_credited: programme?.not_credited,
      },
      report: {
        leads: Number(report?.leads),
        clients: Number(report?.clients),
        flagged: Number(report?.flagged),
        not_credited: Number(report?.not_credited),
      },
    };
  };
  return { ...test, clock, signUp, flag, review, get, numbers };
}

describeOnBackends('decisions on a lead’s credit on $name', (backend) => {
  it('refuses as the other APIs do: 401 without a programme token, 403 for a marketer, 404, 400', async () => {
    const { signUp, review, rows, services, log } = await start(backend);
    const id = await signUp('42');
    for (const bearer of [null, 'not.a.token', await token({ exp: 1 })]) {
      const response = await review(id, { credited: false }, bearer);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: arStats.errorSignIn });
    }
    for (const role of ['marketing', 'team_leader_marketing']) {
      const response = await review(id, { credited: false }, await token({ sub: '42', role }));
      expect(response.statusCode, role).toBe(403);
      expect(response.json()).toEqual({ error: ar.errorNotAuthorized });
    }
    for (const unknown of ['00000000-0000-4000-8000-000000000000', 'no-such-lead']) {
      const response = await review(unknown, { credited: false });
      expect(response.statusCode, unknown).toBe(404);
      expect(response.json()).toEqual({ error: arReview.errorNotFound });
    }
    for (const body of [
      {},
      { credited: 'no' },
      { credited: 0 },
      { credited: false, note: 'x'.repeat(281) },
      { credited: false, status: 'client' },
    ]) {
      const response = await review(id, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toEqual({ error: arReview.errorDecision });
    }
    // The log names what was refused: a decision, not a sign-up.
    expect(log()).toContain('decision refused: invalid fields');
    expect(log()).not.toContain('registration refused');
    // None of them recorded anything.
    expect(await rows()).toHaveLength(1);
    expect(await services.database.db.selectFrom('lead_reviews').selectAll().execute()).toEqual([]);
  });

  it('says which numbers, list or decision failed, not the sign-up’s error, when the database fails', async () => {
    const { signUp, review, app, services } = await start(backend);
    const id = await signUp('42');
    // Every count, the list and a decision read the decisions: without their table, each fails.
    await services.database.db.schema.dropTable('lead_reviews').execute();
    const failures = [
      ['/api/program/stats?days=7', await token(), arProgram.errorStats],
      ['/api/program/review', await token(), arReview.errorList],
      [
        '/api/marketer/stats?days=7',
        await token({ sub: '42', role: 'marketing' }),
        arStats.errorStats,
      ],
    ] as const;
    for (const [url, bearer, error] of failures) {
      const response = await app.inject({ url, headers: { authorization: `Bearer ${bearer}` } });
      expect(response.statusCode, url).toBe(500);
      expect(response.json(), url).toEqual({ error });
    }
    const decided = await review(id, { credited: false });
    expect(decided.statusCode).toBe(500);
    expect(decided.json()).toEqual({ error: arReview.errorSave });
    // Without the table no count can be compared with the kept ones (the check every test ends
    // with): closed, the database is left out of it.
    await services.database.close();
  });

  it('refuses a note or a token subject that could not be stored as sent: 400 and 401, never a 500', async () => {
    const { signUp, review, get, app, log, services } = await start(backend);
    const id = await signUp('42');
    // NUL, which PostgreSQL refuses in text; RLO, ESC and U+2028, which reorder or forge a line.
    const unstorable = ['a\u0000b', 'a\u202Eb', 'a\u001B[31mb', 'a\u2028b'];
    for (const note of unstorable) {
      const response = await review(id, { credited: false, note });
      expect(response.statusCode, JSON.stringify(note)).toBe(400);
      expect(response.json()).toEqual({ error: arReview.errorDecision });
    }
    for (const sub of unstorable) {
      const programme = await token({ sub });
      for (const response of [
        await review(id, { credited: false, note: 'checked' }, programme),
        await app.inject({
          url: '/api/program/review',
          headers: { authorization: `Bearer ${programme}` },
        }),
        await app.inject({
          url: '/api/marketer/stats',
          headers: { authorization: `Bearer ${await token({ sub, role: 'marketing' })}` },
        }),
      ]) {
        expect(response.statusCode, JSON.stringify(sub)).toBe(401);
        expect(response.json()).toEqual({ error: arStats.errorSignIn });
      }
    }
    // A team member's id that could not be stored names no marketer: left out, not a 500.
    const leader = await token({
      sub: '41',
      role: 'team_leader_marketing',
      team: ['42', 'a\u0000b'],
    });
    const team = await get<MarketerStats>('/api/marketer/stats?days=7', leader);
    expect(team.team?.map((member) => member.marketing_id)).toEqual(['42']);
    expect(await services.database.db.selectFrom('lead_reviews').selectAll().execute()).toEqual([]);
    expect(log()).not.toContain('unexpected error');
  });

  it('moves a lead from leads to not_credited in the marketer’s numbers, the programme’s and the report, and back', async () => {
    const { signUp, flag, review, numbers, services, clock, rows, get } = await start(backend);
    // The same phone through marketer 7's link two days before: past the 24 hours of a repeat.
    clock.now = new Date('2026-11-24T09:00:00.000Z');
    const earlier = await signUp('7', '966500000099');
    clock.now = new Date('2026-11-26T09:00:00.000Z');
    const lead = await signUp('42', '966500000099');
    await signUp('42');
    await signUp('42');
    await services.leadStatuses.change({ id: lead }, 'client', 'api', clock.now);
    await flag(lead, 'contested', earlier);
    // A repeat of the lead: a decision sent for its id is the lead's.
    clock.now = new Date('2026-11-26T09:05:00.000Z');
    // (register answers the lead's id for a repeat; the repeat's own is in the table)
    await signUp('42', '966500000099');
    const repeat = (await rows()).find((row) => row.repeat_of === lead)!.id;

    // Flagged contested alone, it is not awaiting review in the marketer's own numbers: they
    // must not learn that the phone was another marketer's lead before anyone decides.
    const contested = {
      own: { leads: 3, clients: 1, awaiting_review: 0, not_credited: 0 },
      programme: { leads: 3, clients: 1, flagged: 1, not_credited: 0 },
      report: { leads: 3, clients: 1, flagged: 1, not_credited: 0 },
    };
    expect(await numbers()).toEqual(contested);
    await flag(lead, 'fast');
    const credited = { ...contested, own: { ...contested.own, awaiting_review: 1 } };
    expect(await numbers()).toEqual(credited);

    clock.now = new Date('2026-11-26T10:00:00.000Z');
    const refused = await review(repeat, { credited: false, note: '  the same phone as 7’s  ' });
    expect(refused.statusCode).toBe(200);
    expect(refused.json<LeadReview>()).toEqual({
      id: lead,
      credited: false,
      reviewed_by: 'manager-1',
      reviewed_at: '2026-11-26T10:00:00.000Z',
      note: 'the same phone as 7’s',
    });
    expect(await numbers()).toEqual({
      own: { leads: 2, clients: 0, awaiting_review: 0, not_credited: 1 },
      programme: { leads: 2, clients: 0, flagged: 1, not_credited: 1 },
      report: { leads: 2, clients: 0, flagged: 1, not_credited: 1 },
    });

    // A second decision, the latest, gives the credit back; both are kept.
    clock.now = new Date('2026-11-26T11:00:00.000Z');
    const given = await review(lead, { credited: true });
    expect(given.json<LeadReview>()).toMatchObject({ id: lead, credited: true, note: '' });
    expect(await numbers()).toEqual({ ...credited, own: { ...credited.own, awaiting_review: 0 } });
    const decisions = await services.database.db
      .selectFrom('lead_reviews')
      .select(['registration_id', 'credited', 'reviewed_by', 'note', 'reviewed_at'])
      .orderBy('reviewed_at')
      .execute();
    expect(decisions).toEqual([
      {
        registration_id: lead,
        credited: 0,
        reviewed_by: 'manager-1',
        note: 'the same phone as 7’s',
        reviewed_at: '2026-11-26T10:00:00.000Z',
      },
      {
        registration_id: lead,
        credited: 1,
        reviewed_by: 'manager-1',
        note: '',
        reviewed_at: '2026-11-26T11:00:00.000Z',
      },
    ]);

    // A marketer whose every lead is not credited stays among the programme's marketers.
    await review(earlier, { credited: false });
    const { marketers } = await get<ProgramStats>('/api/program/stats?days=7');
    expect(marketers.find((row) => row.marketing_id === '7')).toMatchObject({
      leads: 0,
      not_credited: 1,
    });
  });

  it('lists the flagged leads awaiting a decision, oldest first, and the decided ones with their decisions, with no prospect in them', async () => {
    const { app, signUp, flag, review, get, clock, services } = await start(backend);
    // The directory names 42; it does not know 43, who stays their id alone.
    await services.people.put(
      [
        {
          marketing_id: '42',
          name: 'سلمى العتيبي',
          team_leader_id: null,
          email: null,
          active: true,
        },
      ],
      clock.now,
    );
    const earlier = await signUp(undefined, '966512345678');
    clock.now = new Date('2026-11-26T09:00:00.000Z');
    const contested = await signUp('42', '966512345678');
    await flag(contested, 'same_address');
    await flag(contested, 'contested', earlier);
    clock.now = new Date('2026-11-26T09:01:00.000Z');
    const fast = await signUp('43');
    await flag(fast, 'fast');
    clock.now = new Date('2026-11-26T09:02:00.000Z');
    const decided = await signUp('43');
    await flag(decided, 'burst');
    await review(decided, { credited: true });
    // A lead decided without a flag, twice: the latest decision is the later one.
    clock.now = new Date('2026-11-26T09:03:00.000Z');
    const unflagged = await signUp('42', '966500000777');
    await review(unflagged, { credited: false, note: 'a test number' });
    clock.now = new Date('2026-11-26T09:04:00.000Z');
    await review(unflagged, { credited: true, note: 'it was not' });
    await signUp('42');

    const list = await get<ReviewList>('/api/program/review');
    expect(list).toEqual({
      count: 2,
      leads: [
        {
          id: contested,
          created_at: '2026-11-26T09:00:00.000Z',
          marketing_id: '42',
          name: 'سلمى العتيبي',
          package_key: 'premium_reco',
          phone_end: '678',
          // The earlier lead came through a general link: no marketer.
          flags: [
            { flag: 'contested', other: { marketing_id: null, name: null } },
            { flag: 'same_address', other: null },
          ],
        },
        {
          id: fast,
          created_at: '2026-11-26T09:01:00.000Z',
          marketing_id: '43',
          name: null,
          package_key: 'premium_reco',
          phone_end: expect.stringMatching(/^\d{3}$/),
          flags: [{ flag: 'fast', other: null }],
        },
      ],
      // The latest decision first, each lead with its record of decisions, the latest first.
      decided: [
        {
          id: unflagged,
          created_at: '2026-11-26T09:03:00.000Z',
          marketing_id: '42',
          name: 'سلمى العتيبي',
          package_key: 'premium_reco',
          phone_end: '777',
          flags: [],
          reviews: [
            {
              credited: true,
              reviewed_by: 'manager-1',
              reviewed_at: '2026-11-26T09:04:00.000Z',
              note: 'it was not',
            },
            {
              credited: false,
              reviewed_by: 'manager-1',
              reviewed_at: '2026-11-26T09:03:00.000Z',
              note: 'a test number',
            },
          ],
        },
        {
          id: decided,
          created_at: '2026-11-26T09:02:00.000Z',
          marketing_id: '43',
          name: null,
          package_key: 'premium_reco',
          phone_end: expect.stringMatching(/^\d{3}$/),
          flags: [{ flag: 'burst', other: null }],
          reviews: [
            {
              credited: true,
              reviewed_by: 'manager-1',
              reviewed_at: '2026-11-26T09:02:00.000Z',
              note: '',
            },
          ],
        },
      ],
    });
    expect(JSON.stringify(list)).not.toMatch(/سارة|966512|9665000007/);
    // A marketer never sees it.
    const forbidden = await app.inject({
      url: '/api/program/review',
      headers: { authorization: `Bearer ${await token({ sub: '42', role: 'marketing' })}` },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({ error: ar.errorNotAuthorized });
  });

  it('takes flags and decisions with the lead on erasure and retention, and keeps the counts', async () => {
    const { signUp, flag, review, numbers, services, clock } = await start(backend);
    clock.now = new Date('2026-11-21T09:00:00.000Z');
    const old = await signUp('42');
    await flag(old, 'burst');
    await review(old, { credited: false });
    clock.now = new Date('2026-11-26T09:00:00.000Z');
    const erased = await signUp('42', '966511111111');
    await flag(erased, 'disposable_email');
    await flag(erased, 'fast');
    await review(erased, { credited: false });
    await signUp('42');
    const before = await numbers();
    expect(before.report).toEqual({ leads: 1, clients: 0, flagged: 2, not_credited: 2 });

    const { db } = services.database;
    const left = async () => ({
      flags: (await db.selectFrom('lead_flags').select('registration_id').execute()).length,
      reviews: (await db.selectFrom('lead_reviews').select('registration_id').execute()).length,
      events: (
        await db
          .selectFrom('webhook_events')
          .select('type')
          .where('type', '=', 'registration.reviewed')
          .execute()
      ).length,
    });
    expect(await left()).toEqual({ flags: 3, reviews: 2, events: 2 });

    const deleted = await deleteSubmissions(services.database, { phone: '966511111111' });
    expect(deleted).toMatchObject({ ids: [erased], reviews: 1 });
    expect(await left()).toEqual({ flags: 1, reviews: 1, events: 1 });
    expect(await numbers()).toEqual(before);

    await deleteSubmissions(services.database, { createdBefore: '2026-11-25T00:00:00.000Z' });
    expect(await left()).toEqual({ flags: 0, reviews: 0, events: 0 });
    expect(await numbers()).toEqual(before);
  });

  it('passes the decisions, not the flags, to a repeat that becomes the lead when the lead is erased by e-mail', async () => {
    const { signUp, flag, review, services, clock, rows, databaseUrl } = await start(backend);
    const lead = await signUp('42', '966512345678', 'someone@evil.example');
    await flag(lead, 'disposable_email');
    await review(lead, { credited: false });
    clock.now = new Date('2026-11-26T09:00:00.000Z');
    await signUp('42', '966512345678', 'reem@example.com');
    const repeat = (await rows()).find((row) => row.repeat_of === lead)!.id;

    await deleteSubmissions(services.database, { email: 'someone@evil.example' });
    const { db } = services.database;
    expect(await db.selectFrom('lead_flags').selectAll().execute()).toEqual([]);
    expect(
      await db.selectFrom('lead_reviews').select(['registration_id', 'credited']).execute(),
    ).toEqual([{ registration_id: repeat, credited: 0 }]);
    // The decision goes on with the phone's lead, as its status does; the flag was the erased
    // submission's (its e-mail), and is still counted for it.
    expect(await services.leadReviews.list({ awaiting: 10, decided: 10 })).toMatchObject({
      count: 0,
    });
    expect((await reportRows(databaseUrl))[0]).toMatchObject({
      marketing_id: '42',
      flagged: '1',
      not_credited: '1',
    });
  });

  it('shows npm run person the flags by name and the decisions only to a look-up by phone', async () => {
    const { signUp, flag, review, clock, databaseUrl } = await start(backend);
    clock.now = new Date('2026-11-24T09:00:00.000Z');
    const earlier = await signUp('7', '966512345678');
    clock.now = new Date('2026-11-26T09:00:00.000Z');
    const lead = await signUp('42', '966512345678', 'reem@example.com');
    await flag(lead, 'fast');
    await flag(lead, 'contested', earlier);
    clock.now = new Date('2026-11-26T10:00:00.000Z');
    await review(lead, { credited: false, note: 'checked' });
    const person = async (...args: string[]) => {
      let out = '';
      const code = await personCommand.run(
        args,
        { DATABASE_URL: databaseUrl },
        { out: (text) => (out += text), err: (text) => expect.fail(text) },
      );
      expect(code).toBe(0);
      return out;
    };
    type Shown = {
      submissions: {
        id: string;
        flags: string;
        reviews: object[];
        webhook_events: { type: string }[];
      }[];
    };

    const byPhone = await person('--phone', '966512345678');
    const theirs = (JSON.parse(byPhone) as Shown).submissions.find((row) => row.id === lead)!;
    expect(theirs.flags).toBe('contested fast');
    expect(theirs.reviews).toEqual([
      {
        credited: false,
        reviewed_by: 'manager-1',
        note: 'checked',
        reviewed_at: '2026-11-26T10:00:00.000Z',
      },
    ]);
    // Queued as a status change's event is, whatever WEBHOOK_URL (unset here, so no sign-up's).
    expect(theirs.webhook_events.map((event) => event.type)).toEqual(['registration.reviewed']);
    expect(byPhone).not.toContain('other_id');

    // By e-mail: no flag (contested would tell that the phone was another marketer's lead), no
    // decision, and nothing of the earlier lead of that phone.
    const byEmail = await person('--email', 'reem@example.com');
    expect((JSON.parse(byEmail) as Shown).submissions).toEqual([
      expect.objectContaining({
        id: lead,
        flags: '',
        reviews: [],
        webhook_events: [],
      }),
    ]);
    expect(byEmail).not.toContain(earlier);
  });

  it('prints in npm run person a stored note’s controls and bidi characters escaped, as JSON that reads back as stored', async () => {
    const { signUp, services, databaseUrl } = await start(backend);
    const lead = await signUp('42', '966512345678');
    // A note stored before notes followed the name's rule: RLO, ESC, U+2028, and a tag character.
    const note = 'call \u202Eenod\u202C \u001B[2J\u2028forged \u{E0041}';
    await services.database.db
      .insertInto('lead_reviews')
      .values({
        id: '00000000-0000-4000-8000-000000000001',
        registration_id: lead,
        credited: 0,
        reviewed_by: 'manager-1',
        note,
        reviewed_at: '2026-11-26T10:00:00.000Z',
      })
      .execute();
    let out = '';
    const code = await personCommand.run(
      ['--phone', '966512345678'],
      { DATABASE_URL: databaseUrl },
      { out: (text) => (out += text), err: (text) => expect.fail(text) },
    );
    expect(code).toBe(0);
    for (const char of ['\u001B', '\u202C', '\u202E', '\u2028', '\u{E0041}']) {
      expect(out).not.toContain(char);
    }
    expect(out).toContain('call \\u202eenod\\u202c \\u001b[2J\\u2028forged \\udb40\\udc41');
    const shown = JSON.parse(out) as { submissions: { reviews: { note: string }[] }[] };
    expect(shown.submissions[0]!.reviews[0]!.note).toBe(note);
  });

  it('queues registration.reviewed with the decision and the flags, and no person', async () => {
    const webhookSecret = newWebhookSecret();
    const endpoint = await startWebhookReceiver(webhookSecret);
    onTestFinished(() => endpoint.close());
    const { signUp, flag, review, services, clock, events } = await start(backend, {
      WEBHOOK_URL: endpoint.url,
      WEBHOOK_SECRET: webhookSecret,
    });
    const id = await signUp('42');
    await endpoint.waitFor(1);
    expect(endpoint.received[0]!.data.flags).toEqual([]);
    // Stored as delivered before the clock moves (its lease is by that clock).
    await expect.poll(async () => (await events())[0]?.status).toBe('delivered');
    await flag(id, 'same_address');
    await flag(id, 'burst');
    clock.now = new Date('2026-11-26T10:00:00.000Z');
    await review(id, { credited: false, note: 'سارة 966500000001 twice' });
    await endpoint.waitFor(2);
    const reviewed = endpoint.received[1]!;
    expect({ type: reviewed.type, timestamp: reviewed.timestamp, data: reviewed.data }).toEqual({
      type: 'registration.reviewed',
      timestamp: '2026-11-26T10:00:00.000Z',
      data: {
        id,
        credited: false,
        reviewed_at: '2026-11-26T10:00:00.000Z',
        flags: ['burst', 'same_address'],
      },
    });
    expect(JSON.stringify(reviewed.data)).not.toMatch(/سارة|9665|manager/);
    // Sent again, the lead's own event carries its flags as they are now.
    await expect.poll(async () => (await events())[1]?.status).toBe('delivered');
    await services.outbox.replay(new Date('2026-11-20T00:00:00.000Z'), clock.now);
    await endpoint.waitFor(4);
    const created = endpoint.received.slice(2).find((e) => e.type === 'registration.created');
    expect(created?.data.flags).toEqual(['burst', 'same_address']);
  });
  it('answers the queue oldest first, so that 104 general-link sign-ups from one address bury no older contested lead; pages to its end and filters', async () => {
    const { signUp, get, services, clock, app } = await start(backend);
    // The phone through marketer 7's link two days before: past the 24 hours of a repeat.
    clock.now = new Date('2026-11-24T08:00:00.000Z');
    await signUp('7', '966512345678');
    clock.now = new Date('2026-11-26T08:01:00.000Z');
    const contested = await signUp('42', '966512345678');
    const general: string[] = [];
    for (let n = 0; n < 104; n += 1) {
      clock.now = new Date(Date.parse('2026-11-26T08:02:00.000Z') + n * 1000);
      const registration = registrationSchema.parse(
        buildPayload(
          { name: 'سارة', email: '', phone: `9665100${String(n).padStart(5, '0')}` },
          { packageName: 'premium_reco' },
        ),
      );
      general.push(
        (
          await services.registrations.register(registration, clock.now, 'api', {
            evidence: { addressHash: 'one-address', servedAt: null },
          })
        ).id,
      );
    }
    // Past the third from that address, each of them same_address.
    const awaiting = [contested, ...general.slice(3)];

    const first = await get<ReviewList>('/api/program/review');
    expect(first.count).toBe(awaiting.length);
    expect(first.leads.map((lead) => lead.id)).toEqual(awaiting.slice(0, 100));
    expect(first.leads[0]!.flags).toEqual([
      { flag: 'contested', other: { marketing_id: '7', name: null } },
    ]);
    // Named as soon as the platform puts them: the list reads the directory as it is now.
    await services.people.put(
      [{ marketing_id: '7', name: 'ريم الشهري', team_leader_id: null, email: null, active: true }],
      clock.now,
    );
    const named = await get<ReviewList>('/api/program/review');
    expect(named.leads[0]!.flags).toEqual([
      { flag: 'contested', other: { marketing_id: '7', name: 'ريم الشهري' } },
    ]);
    const next = await get<ReviewList>(`/api/program/review?after=${first.leads.at(-1)!.id}`);
    expect(next.leads.map((lead) => lead.id)).toEqual(awaiting.slice(100));
    const end = await get<ReviewList>(`/api/program/review?after=${next.leads.at(-1)!.id}`);
    expect(end).toMatchObject({ count: awaiting.length, leads: [] });

    for (const url of [
      '/api/program/review?marketing_id=42',
      '/api/program/review?flag=contested',
    ]) {
      const filtered = await get<ReviewList>(url);
      expect(filtered.count, url).toBe(1);
      expect(
        filtered.leads.map((lead) => lead.id),
        url,
      ).toEqual([contested]);
    }
    const sameAddress = await get<ReviewList>('/api/program/review?flag=same_address');
    expect(sameAddress.count).toBe(101);

    for (const [query, status] of [
      ['flag=nope', 400],
      ['flag=burst&flag=fast', 400],
      ['marketing_id=%00', 400],
      ['marketing_id=42&marketing_id=43', 400],
      ['page=2', 400],
      ['after=%00', 404],
      ['after=00000000-0000-4000-8000-000000000000', 404],
    ] as const) {
      const response = await app.inject({
        url: `/api/program/review?${query}`,
        headers: { authorization: `Bearer ${await token()}` },
      });
      expect(response.statusCode, query).toBe(status);
      expect(response.json(), query).toEqual({
        error: ar.errorBadRequest,
      });
    }
  });

  it('decides many leads at once, each its own decision and event, as one request against the decisions’ limit', async () => {
    const { signUp, flag, review, get, services, clock, app, rows } = await start(backend);
    const leads: string[] = [];
    for (let n = 0; n < 100; n += 1) {
      const id = await signUp('90', `9665200${String(n).padStart(5, '0')}`);
      await flag(id, 'burst');
      leads.push(id);
    }
    const post = async (payload: unknown, bearer?: string) =>
      app.inject({
        method: 'POST',
        url: '/api/program/review',
        headers: { authorization: `Bearer ${bearer ?? (await token())}` },
        payload: payload as Record<string, unknown>,
      });
    const { db } = services.database;
    const decisions = () =>
      db.selectFrom('lead_reviews').select(['registration_id', 'credited', 'note']).execute();

    // Refused whole: nothing is recorded.
    expect(
      (await post({ ids: leads, credited: false }, await token({ role: 'marketing' }))).statusCode,
    ).toBe(403);
    for (const body of [
      { ids: [], credited: false },
      { ids: [...leads, leads[0]], credited: false },
      { ids: leads.slice(0, 2) },
      { ids: leads.slice(0, 2), credited: false, extra: 1 },
      { ids: leads[0], credited: false },
    ]) {
      const response = await post(body);
      expect(response.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(response.json()).toEqual({ error: arReview.errorDecision });
    }
    const unknown = await post({
      ids: [leads[0], '00000000-0000-4000-8000-000000000000'],
      credited: false,
    });
    expect(unknown.statusCode).toBe(404);
    expect(await decisions()).toEqual([]);

    clock.now = new Date('2026-11-26T10:00:00.000Z');
    const decided = await post({ ids: leads, credited: false, note: ' a rival’s junk ' });
    expect(decided.statusCode).toBe(200);
    expect(decided.json<ReviewsRecorded>().reviews).toEqual(
      leads.map((id) => ({
        id,
        credited: false,
        reviewed_by: 'manager-1',
        reviewed_at: '2026-11-26T10:00:00.000Z',
        note: 'a rival’s junk',
      })),
    );
    expect(await decisions()).toHaveLength(100);
    expect(
      (await db.selectFrom('webhook_events').select('type').execute()).filter(
        (event) => event.type === 'registration.reviewed',
      ),
    ).toHaveLength(100);
    expect(await get<ReviewList>('/api/program/review')).toMatchObject({ count: 0, leads: [] });

    // A lead and its repeat's id: one decision, on the lead.
    clock.now = new Date('2026-11-26T10:01:00.000Z');
    const lead = await signUp('90', '966511111111');
    await signUp('90', '966511111111');
    const repeat = (await rows()).find((row) => row.repeat_of === lead)!.id;
    const once = await post({ ids: [repeat, lead], credited: true });
    expect(once.json<ReviewsRecorded>().reviews).toEqual([
      expect.objectContaining({ id: lead, credited: true }),
    ]);

    // Three requests so far of 60 a minute (the 404's too; the 400s were refused before the
    // limit counts): 57 single decisions more, then a refusal.
    for (let n = 0; n < 57; n += 1) {
      expect((await review(leads[n]!, { credited: true })).statusCode).toBe(200);
    }
    expect((await review(leads[57]!, { credited: true })).statusCode).toBe(429);
    expect((await post({ ids: leads.slice(0, 1), credited: true })).statusCode).toBe(429);
  });
});
