import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { trapField } from '../domain/form-fields';
import { buildPayload } from '../domain/registration';
import { parsePrometheusText, sampleValue } from '../../testing/prometheus-text';
import { buildTestApp, sqliteBackend } from '../../testing/server-test-helpers';
import { newWebhookSecret, startWebhookReceiver } from '../../testing/webhook-receiver';
import { listenForMetrics } from './metrics';

const url = '/api/external-register';
const phoneOf = (n: number) => `9665${String(n).padStart(8, '0')}`;
const signUp = (n: number) =>
  buildPayload({ name: 'سارة', email: '', phone: phoneOf(n) }, { packageName: 'premium_reco' });

type App = Awaited<ReturnType<typeof buildTestApp>>['app'];

/** GET /metrics from the metrics listener, parsed as Prometheus parses it. */
async function scrape(origin: string) {
  const response = await fetch(`${origin}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}

async function saturate(app: App) {
  const deadline = Date.now() + 5_000;
  while (!app.isUnderPressure() && Date.now() < deadline) {
    const until = Date.now() + 400;
    while (Date.now() < until) {
      // Busy: the event loop lags, as under a burst.
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('GET /metrics', () => {
  it('counts each sign-up outcome, page views and commits exactly as they happened', async () => {
    const { app, services, databaseUrl } = await buildTestApp(
      sqliteBackend,
      { METRICS_PORT: '0', RATE_LIMIT_PER_MINUTE: '8' },
      { maxEventLoopDelay: 200 },
    );
    const { server, port } = await listenForMetrics(services.metrics!, '127.0.0.1', 0);
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const origin = `http://127.0.0.1:${port}`;
    const post = (payload: unknown, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, payload: payload as string, headers });

    // 2 created and 1 repeat, a honeypot, 1 invalid, 1 too large, 1 of another type.
    expect((await post(signUp(1))).statusCode).toBe(201);
    expect((await post(signUp(2))).statusCode).toBe(201);
    expect((await post(signUp(1))).statusCode).toBe(201);
    expect((await post({ ...signUp(3), [trapField]: 'x' })).statusCode).toBe(201);
    expect((await post({ ...signUp(4), phone: '123' })).statusCode).toBe(400);
    expect((await post({ ...signUp(5), name: 'x'.repeat(20_000) })).statusCode).toBe(413);
    const text = await app.inject({
      method: 'POST',
      url,
      payload: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(415);
    // A form post from another site.
    const crossSite = await app.inject({
      method: 'POST',
      url: '/register/register-client',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://elsewhere.example',
      },
      payload: 'name=x',
    });
    expect(crossSite.statusCode).toBe(403);
    // The database locked past busy_timeout.
    const holder = new SqliteDatabase(databaseUrl.slice('sqlite:'.length));
    onTestFinished(() => void holder.close());
    holder.exec('begin immediate');
    expect((await post(signUp(6))).statusCode).toBe(503);
    holder.exec('rollback');
    // The 9th request of this address in the minute is over the limit of 8.
    expect((await post(signUp(7))).statusCode).toBe(429);
    await saturate(app);
    expect((await post(signUp(8))).statusCode).toBe(503);
    // Pages: a package form, a free trial, the link page, a 404 (the fixture build has each).
    for (const path of [
      '/register/register-client/premium_reco/42',
      '/register/register-client',
      '/register/my-registration-link',
      '/register/nowhere',
    ]) {
      await app.inject({ url: path, headers: { 'user-agent': 'Mozilla/5.0' } });
    }

    const metrics = await scrape(origin);
    const outcomes = Object.fromEntries(
      [
        'created',
        'repeat',
        'honeypot',
        'validation',
        'too_large',
        'wrong_type',
        'cross_site',
        'database_unavailable',
        'rate_limited',
        'shed',
        'challenge',
        'error',
      ].map((outcome) => [outcome, sampleValue(metrics, 'tasjeel_sign_ups_total', { outcome })]),
    );
    expect(outcomes).toEqual({
      created: 2,
      repeat: 1,
      honeypot: 1,
      validation: 1,
      too_large: 1,
      wrong_type: 1,
      cross_site: 1,
      database_unavailable: 1,
      rate_limited: 1,
      shed: 1,
      challenge: 0,
      error: 0,
    });
    expect(sampleValue(metrics, 'tasjeel_database_errors_total')).toBe(1);
    // Three sign-ups were committed (the honeypot never reaches the database), one at a time.
    const batches = { database: 'sqlite' };
    expect(sampleValue(metrics, 'tasjeel_commit_batch_size_sum', batches)).toBe(3);
    expect(sampleValue(metrics, 'tasjeel_commit_batch_size_count', batches)).toBe(3);
    expect(sampleValue(metrics, 'tasjeel_commit_duration_seconds_count', batches)).toBe(3);
    const views = (screen: string) => sampleValue(metrics, 'tasjeel_page_views_total', { screen });
    expect([
      views('form_package'),
      views('free_trial'),
      views('link_page'),
      views('not_found'),
    ]).toEqual([1, 1, 1, 1]);
    expect(sampleValue(metrics, 'tasjeel_visits_counted_total')).toBe(2);
    expect(
      sampleValue(metrics, 'tasjeel_http_request_duration_seconds_count', {
        route: '/api/external-register',
        method: 'POST',
        status_class: '2xx',
      }),
    ).toBe(4);
    // prom-client's defaults: the process and the event loop.
    expect(metrics.map((sample) => sample.name)).toEqual(
      expect.arrayContaining(['process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds']),
    );
    // Labels of low cardinality only: never a marketer, a phone or a path with ids.
    const labelNames = new Set(metrics.flatMap((sample) => Object.keys(sample.labels)));
    expect(labelNames).not.toContain('marketing_id');
    const routes = new Set(metrics.map((sample) => sample.labels.route).filter(Boolean));
    expect([...routes].some((route) => route?.includes('42'))).toBe(false);
  }, 30_000);

  it('shows the webhook outbox and its attempts, reading the outbox once a scrape', async () => {
    // The first attempt fails and every later one arrives, until the third sign-up: a status
    // switched by the test could come after the retry, 50 ms on, on a busy machine.
    let failures = 1;
    const secret = newWebhookSecret();
    const endpoint = await startWebhookReceiver(secret, () => (failures-- > 0 ? 503 : 204));
    onTestFinished(() => endpoint.close());
    const { app, services } = await buildTestApp(
      sqliteBackend,
      {
        METRICS_PORT: '0',
        WEBHOOK_URL: endpoint.url,
        WEBHOOK_SECRET: secret,
        WEBHOOK_RETRY_DELAYS: '50ms,1h',
      },
      { webhookDelivery: { pollMs: 20 } },
    );
    const { server, port } = await listenForMetrics(services.metrics!, '127.0.0.1', 0);
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const origin = `http://127.0.0.1:${port}`;
    const attempts = async (result: string) =>
      sampleValue(await scrape(origin), 'tasjeel_webhook_attempts_total', { result });

    // The first event fails once, then arrives; the second arrives at once.
    expect((await app.inject({ method: 'POST', url, payload: signUp(1) })).statusCode).toBe(201);
    await expect.poll(() => attempts('failed')).toBe(1);
    expect((await app.inject({ method: 'POST', url, payload: signUp(2) })).statusCode).toBe(201);
    await endpoint.waitFor(2);
    await expect.poll(() => attempts('delivered')).toBe(2);
    let samples = await scrape(origin);
    expect(sampleValue(samples, 'tasjeel_webhook_delivery_lag_seconds_count')).toBe(2);
    expect(sampleValue(samples, 'tasjeel_webhook_events', { status: 'pending' })).toBe(0);
    expect(sampleValue(samples, 'tasjeel_webhook_oldest_pending_age_seconds')).toBe(0);

    // A third fails, fails again 50 ms on, and waits an hour for its next attempt (a poll for
    // its first failure alone could miss those 50 ms on a busy machine).
    failures = Infinity;
    expect((await app.inject({ method: 'POST', url, payload: signUp(3) })).statusCode).toBe(201);
    await expect.poll(() => attempts('failed')).toBe(3);
    const reads = vi.spyOn(services.outbox, 'status');
    samples = await scrape(origin);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(sampleValue(samples, 'tasjeel_webhook_events', { status: 'pending' })).toBe(1);
    expect(sampleValue(samples, 'tasjeel_webhook_events', { status: 'failed' })).toBe(0);
    expect(sampleValue(samples, 'tasjeel_webhook_oldest_pending_age_seconds')).toBeGreaterThan(0);
  });

  it('is only on the metrics listener, and off without METRICS_PORT', async () => {
    const { app, services } = await buildTestApp(sqliteBackend);
    expect(services.metrics).toBeNull();
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(404);
    const on = await buildTestApp(sqliteBackend, { METRICS_PORT: '0' });
    expect((await on.app.inject({ url: '/metrics' })).statusCode).toBe(404);
  });
});

describe('GET /api/ready', () => {
  it('is 200 with the database answering, 503 while draining', async () => {
    const { app, services } = await buildTestApp(sqliteBackend);
    expect((await app.inject({ url: '/api/ready' })).statusCode).toBe(200);
    services.lifecycle.draining = true;
    const draining = await app.inject({ url: '/api/ready' });
    expect(draining.statusCode).toBe(503);
    expect(draining.json()).toEqual({ status: 'draining' });
    expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
  });
});
