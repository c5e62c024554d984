import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { arNotifications, notificationsTextVersion } from '../../domain/catalogue/notifications';
import { ar } from '../../domain/catalogue/shared';
import type { Notifications } from '../../domain/notifications';
import { e2eMarketerAuthSecret, marketerToken } from '../../../testing/marketer-auth';
import {
  buildTestApp,
  describeOnBackends,
  fixtureMailLink,
  sqliteBackend,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { startSmtpRelay, type TestRelay } from '../../../testing/smtp-relay';
import { personCommand } from '../cli/person';
import { eraseExpiredMail } from './mail-personal-data';

// Issue 49: asking for the e-mails, confirming the address, stopping them (docs/notifications.md).

const publicUrl = 'https://tasjeel.example';
const from = '"تسجيل" <no-reply@tasjeel.example>';

async function start(backend: TestBackend, env: Record<string, string> = {}) {
  const relay = await startSmtpRelay();
  onTestFinished(() => relay.close());
  const clock = { now: new Date('2026-11-29T09:00:00.000Z') };
  const test = await buildTestApp(
    backend,
    {
      SMTP_URL: relay.url,
      MAIL_FROM: from,
      PUBLIC_URL: publicUrl,
      MAIL_RETRY_DELAYS: '50ms*100',
      MARKETER_AUTH_SECRET: e2eMarketerAuthSecret,
      PROGRAM_ROLES: 'admin,manager',
      ...env,
    },
    { now: () => clock.now, mailSending: { pollMs: 20 } },
  );
  const { db } = test.services.database;
  /** The API with a token (null: none). */
  const api = (method: 'GET' | 'PUT', token: string | null, payload?: object) =>
    test.app.inject({
      method,
      url: '/api/notifications',
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
      ...(payload !== undefined && { payload }),
    });
  const put = async (token: string, payload: object) => {
    const response = await api('PUT', token, payload);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Notifications>();
  };
  const get = async (token: string) => (await api('GET', token)).json<Notifications>();
  /** A POST to an e-mail link's page, as a browser's button or a provider's one-click sends it. */
  const post = (url: string, body: 'empty' | 'urlencoded' | 'multipart' = 'urlencoded') => {
    const boundary = 'tasjeel-boundary';
    const bodies = {
      empty: {},
      urlencoded: {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      },
      multipart: {
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload:
          `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\n` +
          `One-Click\r\n--${boundary}--\r\n`,
      },
    };
    return test.app.inject({ method: 'POST', url: new URL(url).pathname, ...bodies[body] });
  };
  const subscriber = (subject: string) =>
    db.selectFrom('mail_subscribers').selectAll().where('subject', '=', subject).executeTakeFirst();
  const consents = (subject: string) =>
    db.selectFrom('mail_consents').selectAll().where('subject', '=', subject).execute();
  /** The confirmation e-mails the relay got for `to`, once `count` have come. */
  const mailsTo = async (to: string, count = 1) => {
    await expect
      .poll(() => relay.accepted.filter((mail) => mail.to.includes(to)).length)
      .toBeGreaterThanOrEqual(count);
    return relay.accepted.filter((mail) => mail.to.includes(to));
  };
  return { ...test, relay, clock, api, put, get, post, subscriber, consents, mailsTo };
}

/** The first link of an e-mail's plain text. */
function firstLink(mail: TestRelay['accepted'][number]): string {
  const link = /https?:\/\/\S+/.exec(mail.mail.text ?? '')?.[0];
  expect(link).toBeDefined();
  return link!;
}

/** A header as it was sent (mailparser folds the List-* headers into one structure). */
function headerLine(mail: TestRelay['accepted'][number], name: string): string | undefined {
  const line = mail.mail.headerLines.find(({ key }) => key === name)?.line;
  return line?.slice(line.indexOf(':') + 1).trim();
}

const unsubscribeLink = (mail: TestRelay['accepted'][number]) =>
  /^<(.+)>$/.exec(headerLine(mail, 'list-unsubscribe') ?? '')![1]!;

/** `npm run person` on the app's database, answered yes. */
async function person(databaseUrl: string, argv: string[]) {
  let out = '';
  const code = await personCommand.run(
    argv,
    { DATABASE_URL: databaseUrl },
    { out: (text) => (out += text), err: () => {} },
  );
  expect(code).toBe(0);
  return JSON.parse(out) as Record<string, unknown> & {
    mail: Record<string, Record<string, unknown>[]>;
    erased_mail: Record<string, number>;
  };
}

const none: Notifications = {
  weekly_summary: false,
  client_alerts: false,
  review_digest: false,
  email: null,
  confirmed: false,
  confirmation_sent: false,
  offered: ['weekly_summary', 'client_alerts'],
};

describeOnBackends('the e-mails asked for on $name', (backend) => {
  it('answers the defaults to a marketer the directory does not know, never kept by a cache', async () => {
    const { api } = await start(backend);
    const response = await api('GET', await marketerToken('1042'));
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.json()).toEqual(none);
    const program = await api('GET', await marketerToken('u-9', 'admin'));
    expect(program.json()).toEqual({ ...none, offered: ['weekly_summary', 'review_digest'] });
    const leader = await api('GET', await marketerToken('7', 'team_leader_marketing'));
    expect(leader.json()).toEqual(none);
  });

  it('refuses without a token (401), and a role offered nothing (403)', async () => {
    const { api } = await start(backend);
    const unsigned = await api('GET', null);
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json()).toEqual({ error: arNotifications.errorSignIn });
    const put = await api('PUT', null, { weekly_summary: true });
    expect(put.statusCode).toBe(401);
    const viewer = await api('GET', await marketerToken('u-1', 'viewer'));
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toEqual({ error: ar.errorNotAuthorized });
  });

  it('refuses a choice that does not fit the role, and an address that is none (400)', async () => {
    const { api, subscriber } = await start(backend);
    const marketer = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    const review = await api('PUT', marketer, { review_digest: true });
    expect(review.statusCode).toBe(400);
    expect(review.json()).toEqual({ error: arNotifications.errorChoice });
    const admin = await marketerToken('u-9', 'admin', { email: 'boss@example.com' });
    const client = await api('PUT', admin, { client_alerts: true });
    expect(client.statusCode).toBe(400);
    expect(client.json()).toEqual({ error: arNotifications.errorChoice });
    const bad = await api('PUT', marketer, { email: 'not an address', weekly_summary: true });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: arNotifications.errorInvalid });
    const unknown = await api('PUT', marketer, { weekly: true });
    expect(unknown.statusCode).toBe(400);
    // A choice set false that does not fit is no refusal: it is false anyway.
    expect((await api('PUT', marketer, { review_digest: false })).statusCode).toBe(200);
    // No address known nor typed: nothing can be confirmed.
    const nowhere = await api('PUT', await marketerToken('1043'), { weekly_summary: true });
    expect(nowhere.statusCode).toBe(400);
    expect(nowhere.json()).toEqual({ error: arNotifications.errorNoEmail });
    expect(await subscriber('1043')).toBeUndefined();
  });

  it("takes the token's email claim, keeps the absent fields, and answers what was asked before it is confirmed", async () => {
    const { put, get, subscriber, relay } = await start(backend);
    const token = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    const asked = await put(token, { weekly_summary: true });
    expect(asked).toEqual({
      ...none,
      weekly_summary: true,
      email: 'sara@example.com',
      confirmation_sent: true,
    });
    // Ticked one at a time: the same confirmation takes both, and only one e-mail goes.
    expect(await put(token, { client_alerts: true })).toEqual({ ...asked, client_alerts: true });
    expect(await put(token, { weekly_summary: false })).toEqual({
      ...asked,
      weekly_summary: false,
      client_alerts: true,
    });
    expect(await get(token)).toEqual({ ...asked, weekly_summary: false, client_alerts: true });
    // Nothing may be sent before the confirmation: the kept row has no address and no choice.
    expect(await subscriber('1042')).toMatchObject({
      audience: 'marketer',
      email: null,
      confirmed_at: null,
      weekly_summary: 0,
      client_alerts: 0,
    });
    await expect.poll(() => relay.accepted.length).toBe(1);
  });

  it("takes the directory's address before the token's, and a typed one before both", async () => {
    const { put, services } = await start(backend);
    await services.people.put(
      [
        {
          marketing_id: '1042',
          name: 'سارة',
          team_leader_id: null,
          email: 'sara@directory.example',
          active: true,
        },
      ],
      new Date(),
    );
    const token = await marketerToken('1042', 'marketing', { email: 'sara@token.example' });
    expect((await put(token, { weekly_summary: true })).email).toBe('sara@directory.example');
    const typed = await put(token, { email: 'sara@typed.example' });
    expect(typed).toMatchObject({ email: 'sara@typed.example', confirmation_sent: true });
    // A programme role has no directory: the token's claim.
    const admin = await marketerToken('u-9', 'admin', { email: 'boss@token.example' });
    expect((await put(admin, { review_digest: true })).email).toBe('boss@token.example');
  });

  it('sends the confirmation to the relay; a GET of its link changes nothing, a POST confirms once', async () => {
    const { put, get, post, subscriber, consents, mailsTo, app, services } = await start(backend);
    const token = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    await put(token, { weekly_summary: true, client_alerts: true });

    const [mail] = await mailsTo('sara@example.com');
    expect(mail!.mail.headers.get('feedback-id')).toBe('confirmation:tasjeel');
    expect(headerLine(mail!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const row = await subscriber('1042');
    expect(unsubscribeLink(mail!)).toBe(
      `${publicUrl}/register/notifications/stop/confirmation/${row!.unsubscribe_token}`,
    );
    const link = firstLink(mail!);
    expect(link).toMatch(new RegExp(`^${publicUrl}/register/notifications/confirm/[\\w-]{43}$`));
    // In the HTML too, the first link is the confirmation's.
    expect(/<a\b[^>]*\bhref="([^"]*)"/.exec(String(mail!.mail.html))?.[1]).toBe(link);
    // The link's token is kept only as its hash.
    const [kept] = await services.database.db
      .selectFrom('mail_confirmations')
      .selectAll()
      .execute();
    expect(link).not.toContain(kept!.token_hash);

    // A mail scanner opening the link confirms nothing.
    const opened = await app.inject({ method: 'GET', url: new URL(link).pathname });
    expect(opened.statusCode).toBe(200);
    expect(fixtureMailLink(opened.body)).toEqual({ screen: 'confirmNotifications', mailLink: '' });
    expect(await subscriber('1042')).toMatchObject({ email: null, weekly_summary: 0 });
    expect(await consents('1042')).toEqual([]);

    const confirmed = await post(link, 'empty');
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.headers['content-security-policy']).toBeDefined();
    expect(fixtureMailLink(confirmed.body)).toEqual({
      screen: 'confirmNotifications',
      mailLink: 'done',
    });
    expect(await subscriber('1042')).toMatchObject({
      email: 'sara@example.com',
      confirmed_at: '2026-11-29T09:00:00.000Z',
      weekly_summary: 1,
      client_alerts: 1,
      review_digest: 0,
    });
    const [consent] = await consents('1042');
    expect(consent).toMatchObject({
      email: 'sara@example.com',
      text_version: notificationsTextVersion,
      consented_at: '2026-11-29T09:00:00.000Z',
    });
    expect(JSON.parse(consent!.choices)).toEqual({
      weekly_summary: true,
      client_alerts: true,
      review_digest: false,
    });
    expect(await get(token)).toEqual({
      ...none,
      weekly_summary: true,
      client_alerts: true,
      email: 'sara@example.com',
      confirmed: true,
    });

    // Single-use.
    const again = await post(link);
    expect(again.statusCode).toBe(410);
    expect(fixtureMailLink(again.body)?.mailLink).toBe('invalid');
    expect(await consents('1042')).toHaveLength(1);
  });

  it('turns a choice off at once, and on at once at the confirmed address, with a consent', async () => {
    const { put, post, subscriber, consents, mailsTo, relay } = await start(backend);
    const token = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    await put(token, { weekly_summary: true });
    await post(firstLink((await mailsTo('sara@example.com'))[0]!));
    expect(await put(token, { client_alerts: true })).toMatchObject({
      weekly_summary: true,
      client_alerts: true,
      confirmed: true,
      confirmation_sent: false,
    });
    expect(await consents('1042')).toHaveLength(2);
    expect(await put(token, { weekly_summary: false, client_alerts: false })).toMatchObject({
      weekly_summary: false,
      client_alerts: false,
      confirmed: false,
    });
    // Every e-mail stopped: the address is kept no more.
    expect(await subscriber('1042')).toMatchObject({ email: null, confirmed_at: null });
    expect(relay.accepted).toHaveLength(1);
  });

  it('keeps sending the confirmed address what it had while a new one awaits confirmation', async () => {
    const { put, post, subscriber, mailsTo } = await start(backend);
    const token = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    await put(token, { weekly_summary: true });
    await post(firstLink((await mailsTo('sara@example.com'))[0]!));
    const moved = await put(token, { email: 'sara@new.example', client_alerts: true });
    expect(moved).toMatchObject({
      email: 'sara@new.example',
      confirmed: false,
      confirmation_sent: true,
      client_alerts: true,
    });
    // The old address goes on with what it confirmed, and nothing more.
    expect(await subscriber('1042')).toMatchObject({
      email: 'sara@example.com',
      weekly_summary: 1,
      client_alerts: 0,
    });
    await post(firstLink((await mailsTo('sara@new.example'))[0]!));
    expect(await subscriber('1042')).toMatchObject({
      email: 'sara@new.example',
      weekly_summary: 1,
      client_alerts: 1,
    });
  });

  it('lets a confirmation link expire after seven days', async () => {
    const { put, post, clock, subscriber, mailsTo } = await start(backend);
    const token = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    await put(token, { weekly_summary: true });
    const link = firstLink((await mailsTo('sara@example.com'))[0]!);
    clock.now = new Date(clock.now.getTime() + 7 * 24 * 3_600_000 + 60_000);
    const late = await post(link);
    expect(late.statusCode).toBe(410);
    expect(fixtureMailLink(late.body)?.mailLink).toBe('invalid');
    expect(await subscriber('1042')).toMatchObject({ email: null, weekly_summary: 0 });
    const unknown = await post(`${publicUrl}/register/notifications/confirm/made-up-token`);
    expect(unknown.statusCode).toBe(410);
  });

  it('sends at most three confirmations a person a day and one an address an hour (429)', async () => {
    const { api, put, get, clock, relay } = await start(backend);
    const token = await marketerToken('1042');
    for (const n of [1, 2, 3]) {
      await put(token, { email: `sara${n}@example.com`, weekly_summary: true });
    }
    const fourth = await api('PUT', token, { email: 'sara4@example.com' });
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json()).toEqual({ error: arNotifications.errorLimit });
    // Nothing changed: the last one asked still awaits its confirmation.
    expect(await get(token)).toMatchObject({ email: 'sara3@example.com', weekly_summary: true });

    // Another person, the same address, within the hour.
    const other = await marketerToken('2042');
    const taken = await api('PUT', other, { email: 'SARA3@example.com', weekly_summary: true });
    expect(taken.statusCode).toBe(429);
    clock.now = new Date(clock.now.getTime() + 3_600_000 + 1_000);
    await put(other, { email: 'sara3@example.com', weekly_summary: true });
    // A day later the person may ask again.
    expect((await api('PUT', token, { email: 'sara4@example.com' })).statusCode).toBe(429);
    clock.now = new Date(clock.now.getTime() + 23 * 3_600_000);
    expect((await api('PUT', token, { email: 'sara4@example.com' })).statusCode).toBe(200);
    await expect.poll(() => relay.accepted.length).toBe(5);
  });

  it('stops a kind at once on a one-click POST, urlencoded or multipart; its GET changes nothing', async () => {
    const { app, put, post, subscriber, mailsTo } = await start(backend);
    const token = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    await put(token, { weekly_summary: true, client_alerts: true });
    await post(firstLink((await mailsTo('sara@example.com'))[0]!));
    const { unsubscribe_token: stopToken } = (await subscriber('1042'))!;
    const stop = (kind: string) => `${publicUrl}/register/notifications/stop/${kind}/${stopToken}`;

    const opened = await app.inject({ method: 'GET', url: new URL(stop('weekly')).pathname });
    expect(fixtureMailLink(opened.body)).toEqual({ screen: 'stopNotifications', mailLink: '' });
    expect(await subscriber('1042')).toMatchObject({ weekly_summary: 1, client_alerts: 1 });

    const weekly = await post(stop('weekly'), 'urlencoded');
    expect(weekly.statusCode).toBe(200);
    expect(fixtureMailLink(weekly.body)?.mailLink).toBe('done');
    expect(await subscriber('1042')).toMatchObject({
      email: 'sara@example.com',
      weekly_summary: 0,
      client_alerts: 1,
    });
    const client = await post(stop('client'), 'multipart');
    expect(client.statusCode).toBe(200);
    expect(await subscriber('1042')).toMatchObject({
      email: null,
      confirmed_at: null,
      weekly_summary: 0,
      client_alerts: 0,
    });
    // Again: already stopped, still done.
    expect((await post(stop('client'), 'empty')).statusCode).toBe(200);
    expect((await post(`${publicUrl}/register/notifications/stop/weekly/made-up`)).statusCode).toBe(
      410,
    );
    expect(
      (await post(`${publicUrl}/register/notifications/stop/other/${stopToken}`)).statusCode,
    ).toBe(404);
    const json = await app.inject({
      method: 'POST',
      url: new URL(stop('weekly')).pathname,
      payload: { a: 1 },
    });
    expect(json.statusCode).toBe(415);
  });

  it("withdraws the request from the confirmation's own unsubscribe link", async () => {
    const { put, get, post, mailsTo } = await start(backend);
    const token = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    await put(token, { weekly_summary: true });
    const [mail] = await mailsTo('sara@example.com');
    expect((await post(unsubscribeLink(mail!), 'multipart')).statusCode).toBe(200);
    expect(await get(token)).toMatchObject({ confirmation_sent: false, weekly_summary: false });
    expect((await post(firstLink(mail!))).statusCode).toBe(410);
  });
});

describeOnBackends("the e-mails' personal data on $name", (backend) => {
  /** Sara (1042) confirmed, Noura (2042) asked and never confirmed; every e-mail sent. */
  async function asked(test: Awaited<ReturnType<typeof start>>) {
    const sara = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    await test.put(sara, { weekly_summary: true });
    await test.post(firstLink((await test.mailsTo('sara@example.com'))[0]!));
    const noura = await marketerToken('2042', 'marketing', { email: 'noura@example.com' });
    await test.put(noura, { client_alerts: true });
    await test.mailsTo('noura@example.com');
    const { db } = test.services.database;
    await expect
      .poll(async () =>
        (await db.selectFrom('mail_outbox').select('status').execute()).map((row) => row.status),
      )
      .toEqual(['sent', 'sent']);
  }

  it('npm run person finds by e-mail, in any case, the records of an address, and erases them alone', async () => {
    const test = await start(backend);
    await asked(test);
    const shown = await person(test.databaseUrl, ['--email', 'SARA@example.com']);
    expect(shown.submissions).toEqual([]);
    expect(shown.mail.subscribers).toEqual([
      expect.objectContaining({ subject: '1042', email: 'sara@example.com', weekly_summary: 1 }),
    ]);
    expect(shown.mail.confirmations).toEqual([
      expect.objectContaining({ subject: '1042', used_at: '2026-11-29T09:00:00.000Z' }),
    ]);
    expect(shown.mail.consents).toEqual([
      expect.objectContaining({ subject: '1042', text_version: notificationsTextVersion }),
    ]);
    expect(shown.mail.emails).toEqual([
      expect.objectContaining({ kind: 'confirmation', recipient: 'sara@example.com' }),
    ]);
    // No key to their choices: the tokens of their links are not shown.
    expect(JSON.stringify(shown)).not.toMatch(/unsubscribe_token|token_hash/);

    const erased = await person(test.databaseUrl, [
      '--email',
      'sara@example.com',
      '--erase',
      '--yes',
    ]);
    expect(erased.erased_mail).toEqual({
      subscribers: 1,
      confirmations: 1,
      consents: 1,
      emails: 1,
    });
    expect(await test.subscriber('1042')).toBeUndefined();
    expect(await test.consents('1042')).toEqual([]);
    // Noura's stay.
    expect(await test.subscriber('2042')).toBeDefined();
    const again = await person(test.databaseUrl, ['--email', 'sara@example.com']);
    expect(again.mail).toEqual({ subscribers: [], confirmations: [], consents: [], emails: [] });
    const byMarketer = await person(test.databaseUrl, ['--marketer', '2042']);
    expect(byMarketer.mail.confirmations).toHaveLength(1);
  });

  it("RETENTION_DAYS deletes an inactive marketer's records, old e-mails and lapsed confirmations; a manager's address stays while they want e-mails", async () => {
    const test = await start(backend, { RETENTION_DAYS: '30' });
    await asked(test);
    // Wired into the daily run, which ran at start.
    expect(test.log()).toContain("e-mails' records past RETENTION_DAYS deleted");
    const boss = await marketerToken('u-9', 'admin', { email: 'boss@example.com' });
    await test.put(boss, { review_digest: true });
    await test.post(firstLink((await test.mailsTo('boss@example.com'))[0]!));
    await test.services.people.put(
      [
        {
          marketing_id: '1042',
          name: 'سارة',
          team_leader_id: null,
          email: 'sara@example.com',
          active: false,
        },
      ],
      test.clock.now,
    );
    const { database } = test.services;
    await expect
      .poll(async () => (await database.db.selectFrom('mail_outbox').selectAll().execute()).length)
      .toBe(3);
    await expect
      .poll(async () =>
        (await database.db.selectFrom('mail_outbox').select('status').execute()).every(
          (row) => row.status === 'sent',
        ),
      )
      .toBe(true);

    // Thirty-eight days on: the limit is a day after Noura's link lapsed.
    const before = new Date(test.clock.now.getTime() + 8 * 24 * 3_600_000).toISOString();
    const erased = await eraseExpiredMail(database, before);
    // The manager's used link goes too: their consent is its record.
    expect(erased).toEqual({ subscribers: 2, confirmations: 3, consents: 1, emails: 3 });
    expect(await test.subscriber('1042')).toBeUndefined();
    expect(await test.consents('1042')).toEqual([]);
    // Noura's confirmation lapsed, and her row held nothing else.
    expect(await test.subscriber('2042')).toBeUndefined();
    // The manager wants the digest: their address and consent stay.
    expect(await test.subscriber('u-9')).toMatchObject({
      email: 'boss@example.com',
      review_digest: 1,
    });
    expect(await test.consents('u-9')).toHaveLength(1);
    expect(await database.db.selectFrom('mail_outbox').selectAll().execute()).toEqual([]);
  });
});

describe("the e-mails' links with the database out of reach", () => {
  it('answers a post the page saying it failed (503), and changes nothing', async () => {
    const test = await start(sqliteBackend);
    const token = await marketerToken('1042', 'marketing', { email: 'sara@example.com' });
    await test.put(token, { weekly_summary: true });
    const link = firstLink((await test.mailsTo('sara@example.com'))[0]!);
    // Another process holds SQLite's one write lock past the app's busy_timeout (5 s).
    const holder = new SqliteDatabase(test.databaseUrl.slice('sqlite:'.length));
    onTestFinished(() => {
      holder.close();
    });
    holder.exec('begin immediate');
    const response = await test.post(link);
    holder.exec('rollback');
    expect(response.statusCode).toBe(503);
    expect(fixtureMailLink(response.body)?.mailLink).toBe('failed');
    expect(await test.subscriber('1042')).toMatchObject({ email: null, weekly_summary: 0 });
    // The link still works once the database answers.
    expect((await test.post(link)).statusCode).toBe(200);
  }, 20_000);
});

describe('the e-mails without SMTP_URL', () => {
  it('offers none: the API answers 204 with the numbers on, 404 without them', async () => {
    const { app } = await buildTestApp(sqliteBackend, {
      MARKETER_AUTH_SECRET: e2eMarketerAuthSecret,
    });
    const response = await app.inject({
      method: 'GET',
      url: '/api/notifications',
      headers: { authorization: `Bearer ${await marketerToken('1042')}` },
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    const put = await app.inject({
      method: 'PUT',
      url: '/api/notifications',
      headers: { authorization: `Bearer ${await marketerToken('1042')}` },
      payload: { weekly_summary: true },
    });
    expect(put.statusCode).toBe(404);
    const { app: bare } = await buildTestApp(sqliteBackend);
    expect((await bare.inject({ method: 'GET', url: '/api/notifications' })).statusCode).toBe(404);
  });
});
