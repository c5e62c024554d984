import { describe, expect, it, onTestFinished } from 'vitest';
import { parsePrometheusText, sampleValue } from '../../../testing/prometheus-text';
import { freePort } from '../../../testing/server-process';
import {
  buildTestApp,
  describeOnBackends,
  testDatabaseUrl,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { startSmtpRelay, type RelayAnswer, type TestRelay } from '../../../testing/smtp-relay';
import { writeTransaction } from '../db/dialect';
import { loadConfig } from '../env';
import { listenForMetrics } from '../metrics';
import { queueMail, type Mail } from './mail-outbox';

const from = '"تسجيل" <no-reply@tasjeel.example>';

function weekly(n: number, overrides: Partial<Mail> = {}): Mail {
  return {
    kind: 'weekly',
    to: `marketer${n}@example.com`,
    dedupeKey: `M${n}:2026-W48`,
    subject: 'ملخص أسبوعك',
    text: `النص ${n}`,
    ...overrides,
  };
}

async function relayFor(answer?: RelayAnswer): Promise<TestRelay> {
  const relay = await startSmtpRelay(answer);
  onTestFinished(() => relay.close());
  return relay;
}

/** An app sending through `smtpUrl`, polling its outbox every 20 ms. */
async function appWithMail(
  backend: TestBackend,
  smtpUrl: string,
  env: Record<string, string> = {},
  options: Parameters<typeof buildTestApp>[2] = {},
) {
  const built = await buildTestApp(
    backend,
    {
      SMTP_URL: smtpUrl,
      MAIL_FROM: from,
      PUBLIC_URL: 'https://tasjeel.example',
      MAIL_RETRY_DELAYS: '50ms*100',
      ...env,
    },
    { mailSending: { pollMs: 20 }, ...options },
  );
  const { database } = built.services;
  return {
    ...built,
    queue: (mail: Mail) =>
      writeTransaction(database, [], (trx) => queueMail(trx, mail, new Date())),
    outboxRows: () =>
      database.db.selectFrom('mail_outbox').selectAll().orderBy('created_at').execute(),
  };
}

describeOnBackends('e-mail on $name', (backend) => {
  it('sends a queued e-mail once, with its From, To, Subject, Feedback-ID and Message-ID', async () => {
    const relay = await relayFor();
    const { queue, outboxRows } = await appWithMail(backend, relay.url);

    expect(await queue(weekly(1, { headers: { 'X-Tasjeel-Test': 'passed-through' } }))).toBe(true);

    await expect.poll(async () => (await outboxRows())[0]?.status).toBe('sent');
    const [row] = await outboxRows();
    expect(row).toMatchObject({ attempts: 1, last_error: null, locked_until: null });
    expect(row!.message_id).toBe(`<${row!.id}@tasjeel.example>`);
    expect(relay.accepted).toHaveLength(1);
    const [{ mail, to, messageId }] = relay.accepted as [TestRelay['accepted'][0]];
    expect(to).toEqual(['marketer1@example.com']);
    expect(messageId).toBe(row!.message_id);
    expect(mail.from?.value).toEqual([{ name: 'تسجيل', address: 'no-reply@tasjeel.example' }]);
    expect(mail.subject).toBe('ملخص أسبوعك');
    expect(mail.text?.trim()).toBe('النص 1');
    expect(mail.headers.get('feedback-id')).toBe('weekly:tasjeel');
    expect(mail.headers.get('x-tasjeel-test')).toBe('passed-through');
    expect(relay.logins).toEqual([{ username: 'tasjeel', password: 'relay-password' }]);
  });

  it('queues an e-mail of one kind and key once, and sends it once', async () => {
    const relay = await relayFor();
    const { queue, outboxRows } = await appWithMail(backend, relay.url);

    expect(await queue(weekly(1))).toBe(true);
    expect(await queue(weekly(1, { subject: 'again' }))).toBe(false);
    // Another kind with the same key is another e-mail.
    expect(await queue(weekly(1, { kind: 'review' }))).toBe(true);

    await expect
      .poll(async () => (await outboxRows()).map(({ kind, status }) => [kind, status]).sort())
      .toEqual([
        ['review', 'sent'],
        ['weekly', 'sent'],
      ]);
    expect(relay.accepted.map(({ mail }) => mail.headers.get('feedback-id')).sort()).toEqual([
      'review:tasjeel',
      'weekly:tasjeel',
    ]);
    expect(relay.accepted.map(({ mail }) => mail.subject)).not.toContain('again');
  });

  it('tries again while the relay answers 4xx, and sends it once it accepts', async () => {
    const relay = await relayFor((_mail, n) => (n <= 2 ? 451 : 250));
    const { queue, outboxRows } = await appWithMail(backend, relay.url);

    await queue(weekly(1));

    await expect.poll(async () => (await outboxRows())[0]?.status).toBe('sent');
    expect((await outboxRows())[0]).toMatchObject({ attempts: 3, last_error: null });
    expect(relay.accepted).toHaveLength(1);
    // Every attempt was the same e-mail.
    expect(new Set(relay.attempts.map(({ messageId }) => messageId)).size).toBe(1);
    expect(relay.attempts).toHaveLength(3);
  });

  it('fails an e-mail the relay refuses with a 5xx, and does not try it again', async () => {
    const relay = await relayFor(({ to }) => (to.includes('refused@example.com') ? 550 : 250));
    const { queue, outboxRows } = await appWithMail(backend, relay.url);

    await queue(weekly(1, { to: 'refused@example.com' }));
    await expect.poll(async () => (await outboxRows())[0]?.status).toBe('failed');
    const [refused] = await outboxRows();
    expect(refused).toMatchObject({ attempts: 1, sent_at: null, locked_until: null });
    expect(refused!.last_error).toMatch(/^550 /);

    // Sent after it: the sender has polled since, and left the refused one alone.
    await queue(weekly(2));
    await expect.poll(async () => (await outboxRows())[1]?.status).toBe('sent');
    expect((await outboxRows())[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(relay.attempts.map(({ to }) => to)).toEqual([
      ['refused@example.com'],
      ['marketer2@example.com'],
    ]);
  });

  it('queues while the relay is down, and sends once it is up', async () => {
    const port = await freePort();
    const { queue, outboxRows } = await appWithMail(
      backend,
      `smtp://tasjeel:relay-password@127.0.0.1:${port}`,
    );

    expect(await queue(weekly(1))).toBe(true);
    await expect.poll(async () => (await outboxRows())[0]?.attempts ?? 0).toBeGreaterThanOrEqual(1);
    const [waiting] = await outboxRows();
    expect(waiting).toMatchObject({ status: 'pending', sent_at: null });
    expect(waiting!.last_error).toMatch(/ECONNREFUSED/);

    const relay = await startSmtpRelay(undefined, port);
    onTestFinished(() => relay.close());
    await expect.poll(async () => (await outboxRows())[0]?.status).toBe('sent');
    expect(relay.accepted.map(({ messageId }) => messageId)).toEqual([waiting!.message_id]);
  });

  it('sends an e-mail claimed by an instance that died again, with the same Message-ID', async () => {
    const relay = await relayFor();
    // The instance that died: it claimed the e-mail (setting its Message-ID) and no more.
    const dead = await buildTestApp(backend);
    const { database, mailOutbox } = dead.services;
    await writeTransaction(database, [], (trx) => queueMail(trx, weekly(1), new Date()));
    const now = new Date();
    const [claimed] = await mailOutbox.claim(
      1,
      now,
      new Date(now.getTime() + 200),
      'tasjeel.example',
    );

    const { outboxRows } = await appWithMail(
      backend,
      relay.url,
      {},
      { config: { database: loadConfig({ DATABASE_URL: dead.databaseUrl }).database } },
    );
    await expect.poll(async () => (await outboxRows())[0]?.status).toBe('sent');
    expect(relay.accepted.map(({ messageId }) => messageId)).toEqual([claimed!.messageId]);
  });

  it('counts e-mails sent, retried, failed and waiting on /metrics', async () => {
    const relay = await relayFor(({ to }) =>
      to.includes('refused@example.com') ? 550 : to.includes('later@example.com') ? 451 : 250,
    );
    const { queue, services } = await appWithMail(backend, relay.url, {
      METRICS_PORT: '0',
      MAIL_RETRY_DELAYS: '1h',
    });
    const { server, port } = await listenForMetrics(services.metrics!, '127.0.0.1', 0);
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const scrape = async () =>
      parsePrometheusText(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());

    await queue(weekly(1));
    await queue(weekly(2, { to: 'refused@example.com' }));
    await queue(weekly(3, { to: 'later@example.com' }));

    for (const result of ['sent', 'failed', 'retry']) {
      await expect
        .poll(async () => sampleValue(await scrape(), 'tasjeel_mail_attempts_total', { result }))
        .toBe(1);
    }
    const samples = await scrape();
    expect(sampleValue(samples, 'tasjeel_mail_emails', { status: 'waiting' })).toBe(1);
    expect(sampleValue(samples, 'tasjeel_mail_emails', { status: 'failed' })).toBe(1);
    expect(sampleValue(samples, 'tasjeel_mail_oldest_waiting_age_seconds')).toBeGreaterThan(0);
  });

  it('sends nothing without SMTP_URL, and says so at start', async () => {
    const { app, services, log } = await buildTestApp(backend);
    await app.ready();
    expect(log().match(/no e-mail will be sent/g)).toHaveLength(1);

    const { database } = services;
    expect(
      await writeTransaction(database, [], (trx) => queueMail(trx, weekly(1), new Date())),
    ).toBe(true);
    // No sender was started to claim it.
    const rows = await database.db.selectFrom('mail_outbox').selectAll().execute();
    expect(rows).toMatchObject([{ status: 'pending', attempts: 0, message_id: null }]);
  });
});

describe.skipIf(testDatabaseUrl === undefined)('e-mail from two instances on PostgreSQL', () => {
  it('sends each e-mail once', async () => {
    const relay = await relayFor();
    const postgres = { name: 'PostgreSQL', database: 'postgres', redis: false } as const;
    const first = await appWithMail(postgres, relay.url);
    const second = await appWithMail(
      postgres,
      relay.url,
      {},
      { config: { database: loadConfig({ DATABASE_URL: first.databaseUrl }).database } },
    );

    for (let n = 1; n <= 40; n += 1) await (n % 2 === 0 ? first : second).queue(weekly(n));

    await expect
      .poll(async () => (await first.outboxRows()).filter(({ status }) => status === 'sent').length)
      .toBe(40);
    const ids = relay.accepted.map(({ messageId }) => messageId);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });
});
