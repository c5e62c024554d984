import { describe, expect, it, onTestFinished } from 'vitest';
import { privacyVersionField, trapField } from '../../domain/form-fields';
import { packageLabel } from '../../domain/packages';
import type { RouteAttribution } from '../../domain/notes';
import { buildPayload, type Utm } from '../../domain/registration';
import {
  buildTestApp,
  describeOnBackends,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import {
  newWebhookSecret,
  startWebhookReceiver,
  type Answer,
} from '../../../testing/webhook-receiver';
import { webhooksCommand } from '../cli/webhooks';

const values = { name: 'سارة القحطاني', email: 'sara@example.com', phone: '966512345678' };
const premium = { packageName: 'premium_reco', marketingId: '42' };

async function receiver(answer?: Answer, secret = newWebhookSecret()) {
  const started = await startWebhookReceiver(secret, answer);
  onTestFinished(() => started.close());
  return { ...started, secret };
}

/** The app with webhooks to `url`, a short schedule and a quick poll, as the tests need. */
async function appWithWebhooks(
  backend: TestBackend,
  url: string,
  secret: string,
  env: Record<string, string> = {},
) {
  return buildTestApp(
    backend,
    { WEBHOOK_URL: url, WEBHOOK_SECRET: secret, WEBHOOK_RETRY_DELAYS: '50ms,50ms', ...env },
    { webhookDelivery: { pollMs: 20 } },
  );
}

async function signUp(
  app: Awaited<ReturnType<typeof buildTestApp>>['app'],
  phone = values.phone,
  route: RouteAttribution = premium,
  utm: Utm = {},
) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/external-register',
    payload: buildPayload({ ...values, phone }, route, utm),
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>().id;
}

const quiet = { out: () => {}, err: () => {} };

describeOnBackends('webhooks on $name', (backend) => {
  it('delivers each sign-up once, signed, with the stored fields; a repeat as registration.repeated', async () => {
    const endpoint = await receiver();
    const { app, rows, events } = await appWithWebhooks(backend, endpoint.url, endpoint.secret);

    const first = await signUp(app);
    const freeTrial = await signUp(
      app,
      '966500000009',
      { marketingId: '7' },
      { utm_source: 'whatsapp', utm_medium: 'referral' },
    );
    expect(await signUp(app)).toBe(first);
    // A sign-up stores its event with it: once the three stored are delivered, nothing is left
    // to send.
    await expect
      .poll(async () => (await events()).map((event) => event.status))
      .toEqual(['delivered', 'delivered', 'delivered']);

    expect(endpoint.rejected()).toBe(0);
    expect(endpoint.received).toHaveLength(3);
    const stored = await rows();
    const repeatRow = stored.find((row) => row.repeat_of === first);
    expect(repeatRow).toBeDefined();
    const byRegistration = new Map(endpoint.received.map((event) => [event.data.id, event]));
    expect(byRegistration.get(first)).toMatchObject({
      type: 'registration.created',
      timestamp: stored[0]?.created_at,
      data: {
        id: first,
        created_at: stored[0]?.created_at,
        name: values.name,
        email: values.email,
        phone: values.phone,
        notes: stored[0]?.notes,
        marketing_id: '42',
        package_key: 'premium_reco',
        package_label: packageLabel('premium_reco'),
        source: 'marketer_link',
        repeat_of: null,
        utm: {},
        // No PRIVACY_URL here: no notice to record; the pages' API call.
        consent: { privacy_url: '', privacy_version: '', channel: 'api', privacy_attested: false },
      },
    });
    expect(byRegistration.get(freeTrial)?.data).toMatchObject({
      package_key: null,
      package_label: null,
      marketing_id: '7',
      utm: { utm_source: 'whatsapp', utm_medium: 'referral' },
    });
    expect(Object.keys(byRegistration.get(freeTrial)?.data.utm ?? {})).toEqual([
      'utm_source',
      'utm_medium',
    ]);
    expect(byRegistration.get(repeatRow?.id)).toMatchObject({
      type: 'registration.repeated',
      data: { id: repeatRow?.id, repeat_of: first },
    });
    // webhook-id is the event's own id, one per event.
    const stored_events = await events();
    expect(new Set(endpoint.received.map((event) => event.id))).toEqual(
      new Set(stored_events.map((event) => event.id)),
    );
  });

  it('delivers a sign-up made without JavaScript (the form posted by the browser), with its consent', async () => {
    const endpoint = await receiver();
    const notice = { PRIVACY_URL: 'https://provider.example/privacy', PRIVACY_VERSION: '2026-11' };
    const { app } = await appWithWebhooks(backend, endpoint.url, endpoint.secret, notice);
    const response = await app.inject({
      method: 'POST',
      url: '/register/register-client/premium_reco/42',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://localhost:80',
      },
      // With the notice's version the page showed, in its hidden field.
      payload: new URLSearchParams({
        ...values,
        [trapField]: '',
        [privacyVersionField]: '2026-11',
      }).toString(),
    });
    expect(response.statusCode).toBe(303);
    await endpoint.waitFor(1);
    expect(endpoint.received[0]?.data).toMatchObject({
      phone: values.phone,
      marketing_id: '42',
      package_key: 'premium_reco',
      consent: {
        privacy_url: notice.PRIVACY_URL,
        privacy_version: '2026-11',
        channel: 'form',
        privacy_attested: true,
      },
    });
  });

  it('signs with the secret: a receiver holding another secret cannot verify it', async () => {
    const endpoint = await receiver(undefined, newWebhookSecret());
    const { app, events } = await appWithWebhooks(backend, endpoint.url, newWebhookSecret());
    await signUp(app);
    await expect.poll(async () => (await events())[0]?.last_error).toBe('HTTP 400');
    expect(endpoint.rejected()).toBeGreaterThan(0);
    expect(endpoint.received).toHaveLength(0);
    expect((await events())[0]?.status).not.toBe('delivered');
  });

  it('signs with both secrets while they are rotated: the receiver verifies with the old one, then the new one', async () => {
    const [next, previous] = [newWebhookSecret(), newWebhookSecret()];
    const signatures: string[] = [];
    const endpoint = await receiver((request) => {
      signatures.push(String(request.headers['webhook-signature']));
      return 204;
    }, previous);
    const { app } = await appWithWebhooks(backend, endpoint.url, `${next},${previous}`);

    const first = await signUp(app);
    await endpoint.waitFor(1);
    // The receiver moves to the new secret at its own pace; the server runs on, unchanged.
    endpoint.verifyWith(next);
    const second = await signUp(app, '966500000002');
    await endpoint.waitFor(2);

    expect(endpoint.rejected()).toBe(0);
    expect(endpoint.received.map((event) => event.data.id)).toEqual([first, second]);
    // Standard Webhooks: one signature per secret, separated by a space.
    expect(signatures).toHaveLength(2);
    for (const header of signatures) expect(header).toMatch(/^v1,\S+ v1,\S+$/);
  });

  it('retries a 503 and an answer that never comes, then delivers, logging no personal data', async () => {
    const endpoint = await receiver((_, n) => (n === 1 ? 503 : n === 2 ? 'hang' : 200));
    const { app, events, log } = await appWithWebhooks(backend, endpoint.url, endpoint.secret, {
      WEBHOOK_TIMEOUT_MS: '300',
    });
    const id = await signUp(app);
    await endpoint.waitFor(1);
    expect(endpoint.requests()).toBe(3);
    await expect.poll(async () => (await events())[0]?.status).toBe('delivered');
    expect((await events())[0]).toMatchObject({ attempts: 3, last_error: null });
    expect(endpoint.received[0]?.data.id).toBe(id);
    const warnings = log()
      .split('\n')
      .filter((line) => line.includes('attempt failed'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('HTTP 503');
    expect(warnings[1]).toContain('no answer within 300 ms');
    for (const secret of [values.name, values.phone, values.email]) {
      expect(log()).not.toContain(secret);
    }
  });

  it('fails an event after the last delay; retry-failed sends it again', async () => {
    let down = true;
    const endpoint = await receiver(() => (down ? 500 : 200));
    const { app, events, databaseUrl } = await appWithWebhooks(
      backend,
      endpoint.url,
      endpoint.secret,
    );
    await signUp(app);
    await expect.poll(async () => (await events())[0]?.status).toBe('failed');
    expect((await events())[0]).toMatchObject({ attempts: 3, last_error: 'HTTP 500' });

    let output = '';
    const env = { DATABASE_URL: databaseUrl };
    await webhooksCommand.run(['status'], env, { ...quiet, out: (text) => (output += text) });
    expect(output).toMatch(/^pending: 0\ndelivered: 0\nfailed: 1\noldest pending: -\n$/);
    down = false;
    expect(await webhooksCommand.run(['retry-failed'], env, quiet)).toBe(0);
    await endpoint.waitFor(1);
    await expect.poll(async () => (await events())[0]?.status).toBe('delivered');
  });

  it('stops at 410 Gone, with an error in the log, and keeps the events pending', async () => {
    const endpoint = await receiver(() => 410);
    const { app, events, log } = await appWithWebhooks(backend, endpoint.url, endpoint.secret);
    await signUp(app);
    await expect.poll(log).toContain('410 Gone');
    await signUp(app, '966500000002');
    // A server beside it, polling as often, delivers a sign-up made after that one: this one
    // would have sent it by then, had it gone on.
    const other = await receiver();
    const beside = await appWithWebhooks(backend, other.url, other.secret);
    await signUp(beside.app);
    await other.waitFor(1);
    expect(endpoint.requests()).toBe(1);
    expect((await events()).map((event) => event.status)).toEqual(['pending', 'pending']);
    expect(log()).toMatch(/"level":50.*410 Gone/);
  });

  it('does not follow a redirect', async () => {
    const endpoint = await receiver((request) => (request.url === '/hooks' ? 302 : 200));
    // No second attempt within the test: a second request could only be the redirect's.
    const { app, events } = await appWithWebhooks(backend, endpoint.url, endpoint.secret, {
      WEBHOOK_RETRY_DELAYS: '1h',
    });
    await signUp(app);
    await expect.poll(async () => (await events())[0]?.last_error).toBe('HTTP 302');
    expect(endpoint.requests()).toBe(1);
  });

  it('answers 201 while the endpoint holds its requests unanswered, and delivers all once it answers', async () => {
    let answer = () => {};
    const answered = new Promise<number>((resolve) => (answer = () => resolve(200)));
    const endpoint = await receiver(() => answered);
    const { app, events } = await appWithWebhooks(backend, endpoint.url, endpoint.secret);
    const ids = [await signUp(app, '966500000010')];
    // A sign-up that waited for the endpoint would never be answered from here on.
    await expect.poll(() => endpoint.requests()).toBe(1);
    for (let n = 1; n < 20; n += 1) ids.push(await signUp(app, `9665000000${10 + n}`));
    expect(endpoint.received).toHaveLength(0);
    answer();
    await endpoint.waitFor(20);
    await expect
      .poll(async () => (await events()).map((event) => event.status))
      .toEqual(Array(20).fill('delivered'));
    expect(new Set(endpoint.received.map((event) => event.data.id))).toEqual(new Set(ids));
  });

  it('pauses an endpoint that fails every attempt, probes it with one event, and resumes when it answers', async () => {
    let up = false;
    const endpoint = await receiver(() => (up ? 200 : 503));
    const { app, events, log } = await appWithWebhooks(backend, endpoint.url, endpoint.secret, {
      WEBHOOK_RETRY_DELAYS: Array(10).fill('100ms').join(','),
      // Thirty sign-ups through one link at once are a burst, whose first twenty would get a
      // registration.flagged event each: one event a sign-up here.
      BURST_LEADS: '100',
    });
    const ids = [];
    for (let n = 0; n < 30; n += 1) ids.push(await signUp(app, `9665000001${10 + n}`));
    // A third pause: the first two, of 100 and 200 ms, each ended by a probe that failed. Each
    // event's own schedule would have sent it three times more meanwhile, about 90 requests.
    await expect.poll(() => log().match(/seems down/g)?.length ?? 0).toBeGreaterThanOrEqual(3);
    expect(endpoint.requests()).toBeLessThanOrEqual(30 + 5);
    expect((await events()).every((event) => event.status === 'pending')).toBe(true);
    expect(log().match(/seems down/g)?.length).toBeLessThanOrEqual(5);

    up = true;
    await endpoint.waitFor(30);
    await expect
      .poll(async () => (await events()).map((event) => event.status))
      .toEqual(Array(30).fill('delivered'));
    expect(new Set(endpoint.received.map((event) => event.data.id))).toEqual(new Set(ids));
    expect(log()).toContain('deliveries resume');
  });

  it('replay sends delivered events again with their original webhook-id', async () => {
    const endpoint = await receiver();
    const { app, events, databaseUrl } = await appWithWebhooks(
      backend,
      endpoint.url,
      endpoint.secret,
    );
    await signUp(app);
    await signUp(app, '966500000002');
    await endpoint.waitFor(2);
    await expect
      .poll(async () => (await events()).map((event) => event.status))
      .toEqual(['delivered', 'delivered']);
    const first = endpoint.received.map((event) => event.id).sort();

    let output = '';
    const code = await webhooksCommand.run(
      ['replay', '--since', '2000-01-01'],
      { DATABASE_URL: databaseUrl },
      { ...quiet, out: (text) => (output += text) },
    );
    expect(code).toBe(0);
    expect(output).toContain('2 events');
    await endpoint.waitFor(4);
    expect(
      endpoint.received
        .slice(2)
        .map((event) => event.id)
        .sort(),
    ).toEqual(first);
  });

  it('hands an event in flight back when the server closes, due at once', async () => {
    const endpoint = await receiver(() => 'hang');
    const { app, events } = await appWithWebhooks(backend, endpoint.url, endpoint.secret);
    await signUp(app);
    await expect.poll(() => endpoint.requests()).toBe(1);
    expect((await events())[0]?.locked_until).not.toBeNull();
    await app.close();
    expect((await events())[0]).toMatchObject({
      status: 'pending',
      locked_until: null,
      attempts: 0,
    });
  });

  it('queues nothing while WEBHOOK_URL is unset', async () => {
    const { app, events } = await buildTestApp(backend);
    await signUp(app);
    expect(await events()).toEqual([]);
  });
});

describe('runWebhooks', () => {
  it.each([[[]], [['send']], [['replay']], [['status', '--since', '2025-01-01']]])(
    'refuses %j with the usage and exit code 2',
    async (argv) => {
      let message = '';
      expect(
        await webhooksCommand.run(argv, {}, { ...quiet, err: (text) => (message += text) }),
      ).toBe(2);
      expect(message).toContain('usage: npm run webhooks');
    },
  );
});
