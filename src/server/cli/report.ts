import { defineCommand, parseSince } from './command';
import { buildCampaignReport, buildReport, formatCampaignReport, formatReport } from '../report';
import { countSignUps } from '../registrations/sign-up-counts';
import { createVisitRepository } from '../visits/visit-repository';

/** `npm run report`: visits and sign-ups per link, or per campaign (`--by campaign`). */
export const reportCommand = defineCommand({
  name: 'report',
  summary: 'visits, leads and what became of them, per link or per campaign',
  usage: ['[--since YYYY-MM-DD[THH:MM:SSZ]] [--format table|csv] [--by link|campaign]'],
  options: {
    format: { type: 'string', default: 'table' },
    since: { type: 'string' },
    by: { type: 'string', default: 'link' },
  },
  parse({ format, since, by }) {
    if (format !== 'table' && format !== 'csv') throw new Error('--format must be table or csv');
    if (by !== 'link' && by !== 'campaign') throw new Error('--by must be link or campaign');
    return { format, by, since: parseSince(since) };
  },
  async run(database, { format, by, since }, { out }) {
    // Visits are kept per day, so a --since with a time counts that whole day's visits.
    const day = since?.toISOString().slice(0, 10);
    const visits = createVisitRepository(database);
    // Deleted submissions (RETENTION_DAYS, erasure) were counted per day before they went; like
    // visits, a --since with a time counts that whole day's.
    const filter = { since: since?.toISOString(), repeats: true };
    if (by === 'campaign') {
      const rows = buildCampaignReport(
        await visits.campaignTotals({ since: day }),
        await countSignUps(database.db, ['utm_source', 'utm_campaign'], filter),
      );
      out(formatCampaignReport(rows, format, since));
    } else {
      const rows = buildReport(
        await visits.totals({ since: day }),
        await countSignUps(database.db, ['marketing_id', 'package_key'], filter),
      );
      out(formatReport(rows, format, since));
    }
    return 0;
  },
});
