import { countAll } from '../counts';
import { formatCampaignReport, formatReport, sortCampaigns, sortLinks } from '../report';
import { defineCommand, parseSince } from './command';

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
  async run({ db }, { format, by, since }, { out }) {
    // Visits and deleted submissions are kept per day: a --since with a time counts that whole
    // day's.
    const filter = { since: since?.toISOString(), repeats: true };
    if (by === 'campaign') {
      const rows = await countAll(db, ['utm_source', 'utm_campaign'], filter);
      out(formatCampaignReport(sortCampaigns(rows), format, since));
    } else {
      const rows = await countAll(db, ['marketing_id', 'package_key'], filter);
      out(formatReport(sortLinks(rows), format, since));
    }
    return 0;
  },
});
