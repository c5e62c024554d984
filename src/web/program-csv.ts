import { arStats } from '../domain/catalogue/marketer-stats';
import { conversion } from '../domain/conversion';
import { csvCell, csvText } from '../domain/csv';
import type { ProgramNumbers, ProgramStats } from '../domain/program-stats';

// The report's names for its columns (src/server/cli/report.ts), one file for the four tables:
// each row fills its own table's text columns and leaves the others empty. A marketer's name
// and team (its leader's id and name) beside their id; a team's row, its leader's.
const header = [
  'table',
  'marketing_id',
  'name',
  'team_leader_id',
  'team_name',
  'utm_source',
  'utm_campaign',
  'package_key',
  'visits',
  'unique_visitors',
  'leads',
  'clients',
  'conversion_percent',
  'client_percent',
  'flagged',
  'not_credited',
  'notes',
  // The period, on every row: a file sent on, or its rows pasted into another sheet, still says
  // which days it counts.
  'from',
  'to',
].join(',');

// The campaigns past a link's limit, as the report names them in its CSV.
const otherCampaigns = '(other)';

const rate = (value: number | null) => value?.toFixed(1) ?? '';

// Never a conversion above 100 % (domain/conversion.ts): where the leads outnumber the visitors
// the cell is empty and the row's notes say why, in the page's words.
function line(table: string, labels: (string | null)[], row: ProgramNumbers): string {
  const moreLeads = conversion(row).kind === 'more_leads';
  return [
    table,
    ...labels.map(csvCell),
    row.visits,
    row.unique_visitors,
    row.leads,
    row.clients,
    moreLeads ? '' : rate(row.conversion_percent),
    rate(row.client_percent),
    row.flagged,
    row.not_credited,
    csvCell(moreLeads ? arStats.conversionMoreLeadsNote : null),
  ].join(',');
}

/**
 * The period's marketers, campaigns and packages as a CSV file that Excel opens as it is (UTF-8
 * with a byte order mark, CRLF), each row with the period's first and last day; null is an
 * empty cell, as in the report.
 */
export function programCsv(stats: ProgramStats): string {
  const teamName = new Map(stats.teams.map((team) => [team.team_leader_id, team.name]));
  const none = [null, null, null, null];
  const lines = [
    ...stats.marketers.map((row) =>
      line(
        'marketers',
        [
          row.marketing_id,
          row.name,
          row.team_leader_id,
          row.team_leader_id === null ? null : (teamName.get(row.team_leader_id) ?? null),
          null,
          null,
          null,
        ],
        row,
      ),
    ),
    ...stats.teams.map((team) =>
      line('teams', [null, null, team.team_leader_id, team.name, null, null, null], team),
    ),
    ...stats.campaigns.map((row) =>
      line(
        'campaigns',
        row.other
          ? [...none, otherCampaigns, otherCampaigns, null]
          : [...none, row.utm_source, row.utm_campaign, null],
        row,
      ),
    ),
    ...stats.packages.map((row) => line('packages', [...none, null, null, row.package_key], row)),
  ];
  return csvText([header, ...lines.map((text) => `${text},${stats.from},${stats.to}`)]);
}

/** The file's name: the period's first and last day. */
export function programCsvName(stats: Pick<ProgramStats, 'from' | 'to'>): string {
  return `program_${stats.from}_${stats.to}.csv`;
}
