import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import type { WebhookConfig } from '../env';
import type { Metrics } from '../metrics';
import { startDelivery } from '../webhooks/delivery';
import type { Outbox, OutboxStatus } from '../webhooks/outbox';

export interface WebhooksPluginOptions {
  config: WebhookConfig;
  now: () => Date;
  outbox: Outbox;
  metrics: Metrics | null;
  pollMs?: number;
  maxInFlight?: number;
}

/** Delivers the outbox's events to WEBHOOK_URL while the server runs (docs/webhooks.md). */
export const webhooksPlugin = fp<WebhooksPluginOptions>(
  async (app, { metrics, ...options }) => {
    const { outbox } = options;
    const delivery = startDelivery({
      ...options,
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
