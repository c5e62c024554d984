import { setImmediate as turn } from 'node:timers/promises';
import fp from 'fastify-plugin';
import type { MailErased } from '../mail/mail-personal-data';
import type { Deleted, Selection } from '../registrations/personal-data';

export interface RetentionPluginOptions {
  /** RETENTION_DAYS: submissions older than this are deleted, people inactive as long erased. */
  days: number;
  now: () => Date;
  /** registrations/personal-data.ts's, on the app's database: one chunk a call. */
  deleteSubmissions: (selection: Selection) => Promise<Deleted>;
  /** people/people.ts's: erases the names and e-mails of those inactive since before; how many. */
  erasePeople: (inactiveBefore: string) => Promise<number>;
  /** mail/mail-personal-data.ts's: the e-mails' rows no longer needed from before; how many. */
  eraseMail?: (before: string) => Promise<MailErased>;
  intervalMs?: number;
}

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Deletes the submissions older than RETENTION_DAYS, with their webhook events, at start and
 * then once a day (docs/personal-data.md); their counts stay in the report's daily totals.
 * In the background, chunk after chunk, each its own short transaction: the server answers from
 * the start however large the backlog, and other writes wait for one chunk at most. Every
 * instance runs it: the instances take turns chunk by chunk, and a later run finds nothing.
 * Then it erases the name and e-mail of the programme's people inactive for as long: one small
 * statement (the directory holds a few thousand), their numbers staying under their id; and the
 * e-mails' records no longer needed (docs/personal-data.md#the-e-mails).
 */
export const retentionPlugin = fp<RetentionPluginOptions>(
  async (app, { days, now, deleteSubmissions, erasePeople, eraseMail, intervalMs = dayMs }) => {
    let running: Promise<void> = Promise.resolve();
    let closing = false;

    async function deleteSubmissionsBefore(createdBefore: string) {
      const total = { submissions: 0, webhookEvents: 0, statusChanges: 0 };
      try {
        while (!closing) {
          const { ids, webhookEvents, statusChanges } = await deleteSubmissions({ createdBefore });
          if (ids.length === 0) break;
          total.submissions += ids.length;
          total.webhookEvents += webhookEvents;
          total.statusChanges += statusChanges;
          // The writes that waited for the connection (SQLite's only one) go before the next
          // chunk takes it: woken together, the loop would otherwise win it every time.
          await turn();
        }
      } catch (error) {
        app.log.warn(
          { err: error, ...total },
          'submissions past RETENTION_DAYS could not all be deleted; trying again tomorrow',
        );
        return;
      }
      // How many, never which: an id leads to nothing once its row is gone, yet a log is kept
      // longer than the data and copied wider. Logged at the end of every run, none deleted too.
      app.log.info({ ...total, retentionDays: days }, 'submissions past RETENTION_DAYS deleted');
    }

    async function erasePeopleBefore(inactiveBefore: string) {
      try {
        const people = await erasePeople(inactiveBefore);
        // How many, as above.
        app.log.info({ people, retentionDays: days }, 'people inactive past RETENTION_DAYS erased');
      } catch (error) {
        app.log.warn(
          { err: error },
          'people inactive past RETENTION_DAYS could not be erased; trying again tomorrow',
        );
      }
    }

    async function eraseMailBefore(before: string) {
      if (eraseMail === undefined) return;
      try {
        const erased = await eraseMail(before);
        // How many, as above.
        app.log.info(
          { ...erased, retentionDays: days },
          "e-mails' records past RETENTION_DAYS deleted",
        );
      } catch (error) {
        app.log.warn(
          { err: error },
          "e-mails' records past RETENTION_DAYS could not be deleted; trying again tomorrow",
        );
      }
    }

    async function deleteExpired() {
      // One limit for the whole run: what turns older while it runs waits for the next.
      const before = new Date(now().getTime() - days * dayMs).toISOString();
      await deleteSubmissionsBefore(before);
      if (!closing) await erasePeopleBefore(before);
      if (!closing) await eraseMailBefore(before);
    }
    const run = () => (running = running.then(deleteExpired));

    // Started, not awaited: the server listens at once and deletes meanwhile.
    app.addHook('onReady', async () => {
      void run();
    });
    const timer = setInterval(run, intervalMs);
    timer.unref();
    app.addHook('onClose', async () => {
      closing = true;
      clearInterval(timer);
      // The chunk in flight commits or rolls back; none starts after it.
      await running;
    });
  },
  { name: 'retention' },
);
