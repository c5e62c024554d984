import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import type { WebhookConfig } from '../env';
import type { Metrics } from '../metrics';
import { startDelivery } from '../webhooks/delivery';
import type { Outbox, OutboxStatus } from '../webhooks/outbox';

export interface WebhooksPluginOptions {
  /** Unset (no WEBHOOK_URL): nothing is delivered, and what is queued is failed. */
  config: WebhookConfig | undefined;
  now: () => Date;
  outbox: Outbox;
  metrics: Metrics | null;
  pollMs?: number;
  maxInFlight?: number;
}

// How often a server without WEBHOOK_URL fails the events queued meanwhile (`npm run lead`).
const failPendingEveryMs = 60 * 60_000;

/**
 * Delivers the outbox's events to WEBHOOK_URL while the server runs (docs/webhooks.md). Without
 * it, the events queued whatever the configuration (a lead's status changes, from the API or
 * `npm run lead` in any shell) are failed at start and hourly, with the reason: nothing waits
 * for a delivery that will not come, and `npm run webhooks -- --retry-failed` sends them once
 * WEBHOOK_URL is set.
 */
export const webhooksPlugin = fp<WebhooksPluginOptions>(
  async (app, { metrics, config, ...options }) => {
    const { outbox, now } = options;
    if (config === undefined) {
      const failPending = async () => {
        const failed = await outbox.failPending('WEBHOOK_URL is not set', now());
        if (failed > 0) app.log.info({ failed }, 'webhook events failed: WEBHOOK_URL is not set');
      };
      const logged = () =>
        failPending().catch((error: unknown) =>
          app.log.warn({ err: error }, 'webhook events could not be failed'),
        );
      let timer: NodeJS.Timeout | undefined;
      // Awaited: a read when nothing is pending, done before the first request is served.
      app.addHook('onReady', async () => {
        await logged();
        timer = setInterval(logged, failPendingEveryMs).unref();
      });
      app.addHook('onClose', async () => clearInterval(timer));
      return;
    }
    const delivery = startDelivery({
      ...options,
      config,
      log: app.log,
      onAttempt: metrics
        ? (result, lagSeconds) => {
            metrics.webhookAttempts.inc({ result });
            if (lagSeconds !== undefined) metrics.webhookLag.observe(lagSeconds);
          }
        : undefined,
    });
    if (metrics) {
      // A scrape reads both gauges at once: they share one reading of the outbox.
      let reading: Promise<OutboxStatus> | undefined;
      const status = () =>
        (reading ??= outbox.status().finally(() => {
          reading = undefined;
        }));
      new Gauge({
        name: 'tasjeel_webhook_events',
        help: 'Webhook events in the outbox by status (pending, failed).',
        labelNames: ['status'] as const,
        registers: [metrics.registry],
        async collect() {
          const { pending, failed } = await status();
          this.set({ status: 'pending' }, pending);
          this.set({ status: 'failed' }, failed);
        },
      });
      new Gauge({
        name: 'tasjeel_webhook_oldest_pending_age_seconds',
        help: 'Age of the oldest pending webhook event (0 when none is pending).',
        registers: [metrics.registry],
        async collect() {
          const { oldestPendingAt } = await status();
          this.set(
            oldestPendingAt === null
              ? 0
              : (options.now().getTime() - Date.parse(oldestPendingAt)) / 1000,
          );
        },
      });
    }
    // Before the database closes (app.ts): the deliveries in flight hand their events back.
    app.addHook('onClose', () => delivery.stop());
  },
  { name: 'webhooks' },
);
