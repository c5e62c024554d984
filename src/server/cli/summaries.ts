import { createLeadReviews } from '../leads/lead-reviews';
import { loadMailSettings } from '../env';
import { mailLinks } from '../mail/mail-links';
import { lastFinishedWeek, weekOf, zonedDate } from '../mail/schedule';
import { sendReviewDigest, sendWeekly } from '../mail/summaries';
import { defineCommand } from './command';

/**
 * `npm run tasjeel -- summaries`: the scheduled e-mails now (docs/notifications.md), for a
 * provider's first run and for tests. `send` queues the last finished week's summaries (or the
 * week `--week` starts), `review` the day's review digest; a server with SMTP_URL sends them.
 * Each e-mail is queued once whatever runs it again, the schedule included.
 */
export const summariesCommand = defineCommand({
  name: 'summaries',
  summary: 'the weekly summaries (or the review digest) queued now, not at their time',
  usage: ['send [--week YYYY-MM-DD]', 'review'],
  help: '--week is the Sunday the week starts on (UTC days, Sunday to Saturday); the last finished week by default.',
  options: { week: { type: 'string' } },
  positionals: true,
  parse(values, positionals, env) {
    const command = positionals.length === 1 ? positionals[0] : undefined;
    if (command !== 'send' && command !== 'review') throw new Error('expected send or review');
    const { week } = values;
    if (week !== undefined) {
      if (command !== 'send') throw new Error('--week goes with send');
      const date = new Date(`${week}T00:00:00Z`);
      if (
        !/^\d{4}-\d{2}-\d{2}$/.test(week) ||
        Number.isNaN(date.getTime()) ||
        date.toISOString().slice(0, 10) !== week ||
        date.getUTCDay() !== 0
      ) {
        throw new Error(`--week must be a Sunday, such as 2026-11-22, not "${week}"`);
      }
      if (date.getTime() + 7 * 86_400_000 > Date.now()) {
        throw new Error('--week must be a week that has ended');
      }
    }
    const mail = loadMailSettings(env);
    if (mail === undefined) {
      throw new Error(
        'e-mail is off: SMTP_URL, MAIL_FROM and PUBLIC_URL must be set, as for the server',
      );
    }
    return { command, week, mail };
  },
  async run(database, { command, week, mail }, { out }) {
    const now = new Date();
    const options = {
      database,
      links: mailLinks(mail.publicUrl, mail.brand),
      leadReviews: createLeadReviews(database),
    };
    if (command === 'review') {
      const day = zonedDate(now, mail.summaries.timeZone);
      const { queued } = await sendReviewDigest(options, day, now, true);
      out(`${queued} review e-mails queued for ${day}\n`);
      return 0;
    }
    const asked = week === undefined ? lastFinishedWeek(now) : weekOf(week);
    const { queued } = await sendWeekly(options, asked, now, true);
    out(`${queued} weekly summaries queued for ${asked.from} to ${asked.to}\n`);
    return 0;
  },
});
