import fp from 'fastify-plugin';
import type { Deleted, Selection } from '../registrations/personal-data';

export interface RetentionPluginOptions {
  /** RETENTION_DAYS: submissions older than this are deleted. */
  days: number;
  now: () => Date;
  /** registrations/personal-data.ts's, on the app's database. */
  deleteSubmissions: (selection: Selection) => Promise<Deleted>;
  intervalMs?: number;
}

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Deletes the submissions older than RETENTION_DAYS, with their webhook events, at start and
 * then once a day (docs/personal-data.md); their counts stay in the report's daily totals.
 * Every instance runs it: a second run finds nothing left to delete.
 */
export const retentionPlugin = fp<RetentionPluginOptions>(
  async (app, { days, now, deleteSubmissions, intervalMs = dayMs }) => {
    let running: Promise<void> = Promise.resolve();

    async function deleteExpired() {
      try {
        const createdBefore = new Date(now().getTime() - days * dayMs).toISOString();
        const { ids, webhookEvents, statusChanges } = await deleteSubmissions({ createdBefore });
        // How many, never which: an id leads to nothing once its row is gone, yet a log is
        // kept longer than the data and copied wider.
        if (ids.length > 0) {
          app.log.info(
            { submissions: ids.length, webhookEvents, statusChanges, retentionDays: days },
            'submissions past RETENTION_DAYS deleted',
          );
        }
      } catch (error) {
        app.log.warn(
          { err: error },
          'submissions past RETENTION_DAYS could not be deleted; trying again tomorrow',
        );
      }
    }
    const run = () => (running = running.then(deleteExpired));

    app.addHook('onReady', async () => {
      await run();
    });
    const timer = setInterval(run, intervalMs);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await running;
    });
  },
  { name: 'retention' },
);
