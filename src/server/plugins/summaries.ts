import fp from 'fastify-plugin';
import type { SummariesConfig } from '../env';
import { dueDay, dueWeek, weekOf } from '../mail/schedule';
import { sendReviewDigest, sendWeekly, type SummariesOptions } from '../mail/summaries';

export interface SummariesPluginOptions extends SummariesOptions {
  config: SummariesConfig;
  now: () => Date;
  /** How often it looks whether a run is due (tests). */
  intervalMs?: number;
}

/**
 * Sends the scheduled e-mails while the server runs (docs/notifications.md): each minute, the
 * last finished week's summaries once their time has come, and the day's review digest once
 * its time has. Every instance looks; the one whose run row is inserted first sends
 * (mail/summaries.ts). Registered only with e-mail on.
 */
export const summariesPlugin = fp<SummariesPluginOptions>(
  async (app, { config, now, intervalMs = 60_000, ...options }) => {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    // What this instance knows is done: no need to ask the database again each minute.
    const done = new Set<string>();

    const runIfDue = async (kind: 'weekly' | 'review', period: string | undefined) => {
      if (period === undefined || done.has(`${kind}|${period}`)) return;
      const at = now();
      const outcome =
        kind === 'weekly'
          ? await sendWeekly(options, weekOf(period), at)
          : await sendReviewDigest(options, period, at);
      if (outcome.run === 'claimed') {
        app.log.info({ kind, period, queued: outcome.queued }, 'e-mail: scheduled run queued');
      }
      // One another instance is running is looked at again: taken over if it stops unfinished.
      if (outcome.run !== 'running') done.add(`${kind}|${period}`);
    };

    const tick = () => {
      if (running !== undefined) return;
      const at = now();
      running = (async () => {
        await runIfDue('weekly', dueWeek(at, config.weeklyAt, config.timeZone)?.from);
        await runIfDue('review', dueDay(at, config.reviewAt, config.timeZone));
      })()
        .catch((error: unknown) =>
          app.log.warn({ err: error }, 'e-mail: a scheduled run failed; tried again next minute'),
        )
        .finally(() => (running = undefined));
    };

    app.addHook('onReady', async () => {
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    });
    // Before the database closes (app.ts): a run under way ends first.
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await running;
    });
  },
  { name: 'summaries' },
);
