import { randomBytes } from 'node:crypto';
import { expect, it, onTestFinished } from 'vitest';
import { buildPayload } from '../../domain/registration';
import { subscribe } from '../../../testing/mail-subscribers';
import {
  buildTestApp,
  describeOnBackends,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { freePort } from '../../../testing/server-process';
import { startSmtpRelay } from '../../../testing/smtp-relay';
import { leadCommand } from '../cli/lead';

// Issue 49: a note to a marketer when one of their leads becomes a client, never the prospect.

const key = randomBytes(24).toString('base64url');
const sara = { name: 'سارة القحطاني', email: 'sara@example.com', phone: '966512345678' };
const premium42 = { packageName: 'premium_reco', marketingId: '42' };
const mailEnv = {
  MAIL_FROM: '"تسجيل" <no-reply@tasjeel.example>',
  PUBLIC_URL: 'https://tasjeel.example',
  MAIL_RETRY_DELAYS: '50ms*100',
};

async function start(backend: TestBackend, env: Record<string, string> = {}) {
  const relay = await startSmtpRelay();
  onTestFinished(() => relay.close());
  const test = await buildTestApp(
    backend,
    { LEADS_API_KEY: key, SMTP_URL: relay.url, ...mailEnv, ...env },
    { mailSending: { pollMs: 20 } },
  );
  const signUp = async (phone = sara.phone, marketingId = '42') => {
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/external-register',
      payload: buildPayload({ ...sara, phone }, { ...premium42, marketingId }),
    });
    expect(response.statusCode).toBe(201);
    return response.json<{ id: string }>().id;
  };
  const setStatus = async (id: string, status: string) => {
    const response = await test.app.inject({
      method: 'POST',
      url: `/api/leads/${id}/status`,
      headers: { authorization: `Bearer ${key}` },
      payload: { status },
    });
    expect(response.statusCode).toBe(200);
  };
  // The client notes alone: the schedule may queue the week's summary of a person who wants it.
  const outbox = () =>
    test.services.database.db
      .selectFrom('mail_outbox')
      .select(['kind', 'recipient', 'dedupe_key', 'status'])
      .where('kind', '=', 'client')
      .orderBy('created_at')
      .execute();
  return { ...test, relay, signUp, setStatus, outbox };
}

describeOnBackends('a client note on $name', (backend) => {
  it('tells the marketer that a lead became a client: the package and the day, nothing of the prospect', async () => {
    const test = await start(backend);
    const person = await subscribe(test.services.database, {
      subject: '42',
      audience: 'marketer',
      email: 'marketer42@example.com',
      client_alerts: 1,
    });
    const id = await test.signUp();
    await test.setStatus(id, 'contacted');
    expect(await test.outbox()).toEqual([]);
    await test.setStatus(id, 'client');

    const notes = () =>
      test.relay.accepted.filter(
        ({ mail }) => mail.headers.get('feedback-id') === 'client:tasjeel',
      );
    await expect.poll(() => notes().length).toBe(1);
    const [{ mail, to }] = notes() as [(typeof test.relay.accepted)[0]];
    expect(to).toEqual(['marketer42@example.com']);
    expect(mail.headers.get('feedback-id')).toBe('client:tasjeel');
    const header = (name: string) =>
      mail.headerLines.find((line) => line.key === name)?.line.replace(/^[^:]+:\s*/, '');
    expect(header('list-unsubscribe')).toBe(
      `<https://tasjeel.example/register/notifications/stop/client/${person.unsubscribe_token}>`,
    );
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const everything = [mail.subject, mail.text, mail.html, ...mail.headerLines.map((h) => h.line)]
      .filter((part) => typeof part === 'string')
      .join('\n');
    for (const prospect of [sara.name, 'سارة', sara.email, sara.phone, '512345678']) {
      expect(everything).not.toContain(prospect);
    }

    // Lost and a client again: one note a lead.
    await test.setStatus(id, 'lost');
    await test.setStatus(id, 'client');
    expect(await test.outbox()).toEqual([
      {
        kind: 'client',
        recipient: 'marketer42@example.com',
        dedupe_key: `42:${id}`,
        status: 'sent',
      },
    ]);
  });

  it('tells no one of a lead marked not credited, nor a marketer who did not ask or confirm', async () => {
    const test = await start(backend);
    const { database, leadReviews } = test.services;
    await subscribe(database, { subject: '42', audience: 'marketer', client_alerts: 1 });
    // Asked, but the address not confirmed yet.
    await subscribe(database, {
      subject: '43',
      audience: 'marketer',
      email: null,
      client_alerts: 1,
    });
    // Confirmed, but only the weekly summary asked for.
    await subscribe(database, { subject: '44', audience: 'team_leader', weekly_summary: 1 });

    const refused = await test.signUp('966500000001');
    await leadReviews.decide(refused, { credited: false, note: '' }, 'manager-1', new Date());
    await test.setStatus(refused, 'client');
    for (const [n, marketer] of ['43', '44', '45'].entries()) {
      await test.setStatus(await test.signUp(`96650000001${n}`, marketer), 'client');
    }
    // A general link's lead has no marketer to tell.
    const general = await test.app.inject({
      method: 'POST',
      url: '/api/external-register',
      payload: buildPayload({ ...sara, phone: '966500000099' }, { packageName: 'premium_reco' }),
    });
    await test.setStatus(general.json<{ id: string }>().id, 'client');
    expect(await test.outbox()).toEqual([]);

    // A decision "credited" after it: the lead counts again, and its marketer is told.
    await leadReviews.decide(refused, { credited: true, note: '' }, 'manager-1', new Date());
    await test.setStatus(refused, 'lost');
    await test.setStatus(refused, 'client');
    expect(await test.outbox()).toMatchObject([{ kind: 'client', dedupe_key: `42:${refused}` }]);
  });

  it('changes the status at once while the relay is down, and sends the note once it is up', async () => {
    const port = await freePort();
    const test = await buildTestApp(
      backend,
      {
        LEADS_API_KEY: key,
        SMTP_URL: `smtp://tasjeel:relay-password@127.0.0.1:${port}`,
        ...mailEnv,
      },
      { mailSending: { pollMs: 20 } },
    );
    const { database } = test.services;
    await subscribe(database, { subject: '42', audience: 'marketer', client_alerts: 1 });
    const id = (
      await test.app.inject({
        method: 'POST',
        url: '/api/external-register',
        payload: buildPayload(sara, premium42),
      })
    ).json<{ id: string }>().id;
    const changed = await test.app.inject({
      method: 'POST',
      url: `/api/leads/${id}/status`,
      headers: { authorization: `Bearer ${key}` },
      payload: { status: 'client' },
    });
    expect(changed.statusCode).toBe(200);
    const note = () =>
      database.db
        .selectFrom('mail_outbox')
        .select(['status', 'attempts', 'last_error'])
        .where('kind', '=', 'client')
        .executeTakeFirst();
    await expect.poll(async () => (await note())?.attempts ?? 0).toBeGreaterThanOrEqual(1);
    expect(await note()).toMatchObject({
      status: 'pending',
      last_error: expect.stringMatching(/ECONNREFUSED/),
    });

    const relay = await startSmtpRelay(undefined, port);
    onTestFinished(() => relay.close());
    await expect.poll(async () => (await note())?.status).toBe('sent');
    expect(relay.accepted.map(({ to }) => to)).toEqual([['42@people.example']]);
  });

  it('queues nothing while e-mail is off', async () => {
    const test = await buildTestApp(backend, { LEADS_API_KEY: key });
    await subscribe(test.services.database, {
      subject: '42',
      audience: 'marketer',
      client_alerts: 1,
    });
    const id = (
      await test.app.inject({
        method: 'POST',
        url: '/api/external-register',
        payload: buildPayload(sara, premium42),
      })
    ).json<{ id: string }>().id;
    const changed = await test.app.inject({
      method: 'POST',
      url: `/api/leads/${id}/status`,
      headers: { authorization: `Bearer ${key}` },
      payload: { status: 'client' },
    });
    expect(changed.statusCode).toBe(200);
    expect(await test.services.database.db.selectFrom('mail_outbox').selectAll().execute()).toEqual(
      [],
    );
  });

  it('queues the note of a status set by `npm run lead`, with e-mail on in its environment', async () => {
    const test = await start(backend);
    await subscribe(test.services.database, {
      subject: '42',
      audience: 'marketer',
      client_alerts: 1,
    });
    const id = await test.signUp();
    const run = (env: Record<string, string>, status: string) =>
      leadCommand.run(
        ['status', '--id', id, '--status', status],
        { DATABASE_URL: test.databaseUrl, ...env },
        { out: () => {}, err: (text) => expect.fail(text) },
      );
    // Without the relay's settings the command queues none, as a server without them.
    expect(await run({}, 'client')).toBe(0);
    expect(await test.outbox()).toEqual([]);
    expect(await run({}, 'lost')).toBe(0);
    expect(await run({ SMTP_URL: test.relay.url, ...mailEnv }, 'client')).toBe(0);
    // The server sends it.
    await expect
      .poll(() => test.relay.accepted.map(({ to }) => to))
      .toEqual([['42@people.example']]);
  });
});
