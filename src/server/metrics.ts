import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** What became of a sign-up request (the `outcome` label of tasjeel_sign_ups_total). */
export type SignUpOutcome =
  | 'created'
  | 'repeat'
  | 'honeypot'
  | 'challenge'
  | 'validation'
  | 'cross_site'
  | 'too_large'
  | 'wrong_type'
  | 'rate_limited'
  | 'shed'
  | 'database_unavailable'
  | 'error';

/** The screens of `tasjeel_page_views_total`. */
export type Screen = 'form_package' | 'free_trial' | 'link_page' | 'not_found';

export type DatabaseKind = 'sqlite' | 'postgres';

/**
 * The server's Prometheus metrics (docs/operations.md), in a registry of their own so that
 * every app built in one process (the tests build many) counts apart. Labels are few and
 * bounded: never a marketer id, a phone or a path with ids.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    signUps: new Counter({
      name: 'tasjeel_sign_ups_total',
      help: 'Sign-up requests (JSON API and HTML form) by outcome.',
      labelNames: ['outcome'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'tasjeel_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by route pattern, method and status class.',
      labelNames: ['route', 'method', 'status_class'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    pageViews: new Counter({
      name: 'tasjeel_page_views_total',
      help: 'Server-rendered pages sent, by screen.',
      labelNames: ['screen'] as const,
      registers,
    }),
    visits: new Counter({
      name: 'tasjeel_visits_counted_total',
      help: 'Form page views counted as visits (link previews and malformed ids left out).',
      registers,
    }),
    batchSize: new Histogram({
      name: 'tasjeel_commit_batch_size',
      help: 'Sign-ups written per group commit, by database kind.',
      labelNames: ['database'] as const,
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500],
      registers,
    }),
    commitDuration: new Histogram({
      name: 'tasjeel_commit_duration_seconds',
      help: 'Time to write and commit one group of sign-ups, by database kind.',
      labelNames: ['database'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    }),
    databaseErrors: new Counter({
      name: 'tasjeel_database_errors_total',
      help: 'Database calls that failed because the database was out of reach.',
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'tasjeel_webhook_attempts_total',
      help: 'Webhook delivery attempts by result (delivered, failed, gone).',
      labelNames: ['result'] as const,
      registers,
    }),
    webhookLag: new Histogram({
      name: 'tasjeel_webhook_delivery_lag_seconds',
      help: 'Time from a sign-up to its webhook being delivered.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000],
      registers,
    }),
    mailAttempts: new Counter({
      name: 'tasjeel_mail_attempts_total',
      help: 'E-mail sending attempts by result (sent, retry, failed).',
      labelNames: ['result'] as const,
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * GET /metrics on a listener of its own (METRICS_PORT), never on the public port: it needs no
 * authentication, and the reverse proxy cannot expose it by mistake.
 */
export async function listenForMetrics(
  metrics: Metrics,
  host: string,
  port: number,
): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return { server, port: (server.address() as AddressInfo).port };
}
