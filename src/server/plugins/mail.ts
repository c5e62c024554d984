import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import type { MailConfig } from '../env';
import type { MailOutbox, MailOutboxStatus } from '../mail/mail-outbox';
import { startMailSender } from '../mail/sender';
import type { Metrics } from '../metrics';

export interface MailPluginOptions {
  /** Unset (no SMTP_URL): nothing is sent. */
  config: MailConfig | undefined;
  now: () => Date;
  outbox: MailOutbox;
  metrics: Metrics | null;
  pollMs?: number;
}

/**
 * Sends the e-mails' outbox through SMTP_URL while the server runs (docs/email.md). Without it
 * nothing is sent, and the start says so once: what would queue an e-mail offers none then.
 */
export const mailPlugin = fp<MailPluginOptions>(
  async (app, { metrics, config, ...options }) => {
    const { outbox, now } = options;
    if (config === undefined) {
      app.log.info('e-mail: SMTP_URL is not set; no e-mail will be sent');
      return;
    }
    // Never the URL itself: it may hold the relay's password.
    const relay = new URL(config.url);
    app.log.info(
      { relay: `${relay.protocol}//${relay.host}` },
      'e-mail: sending through the relay',
    );
    const sender = startMailSender({
      ...options,
      config,
      log: app.log,
      onAttempt: metrics ? (result) => metrics.mailAttempts.inc({ result }) : undefined,
    });
    if (metrics) {
      // A scrape reads both gauges at once: they share one reading of the outbox.
      let reading: Promise<MailOutboxStatus> | undefined;
      const status = () =>
        (reading ??= outbox.status().finally(() => {
          reading = undefined;
        }));
      new Gauge({
        name: 'tasjeel_mail_emails',
        help: 'E-mails in the outbox by status (waiting, failed).',
        labelNames: ['status'] as const,
        registers: [metrics.registry],
        async collect() {
          const { pending, failed } = await status();
          this.set({ status: 'waiting' }, pending);
          this.set({ status: 'failed' }, failed);
        },
      });
      new Gauge({
        name: 'tasjeel_mail_oldest_waiting_age_seconds',
        help: 'Age of the oldest e-mail waiting to be sent (0 when none is).',
        registers: [metrics.registry],
        async collect() {
          const { oldestPendingAt } = await status();
          this.set(
            oldestPendingAt === null ? 0 : (now().getTime() - Date.parse(oldestPendingAt)) / 1000,
          );
        },
      });
    }
    // Before the database closes (app.ts): the attempts in flight are recorded.
    app.addHook('onClose', () => sender.stop());
  },
  { name: 'mail' },
);
