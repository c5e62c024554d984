import { percent } from '../../domain/conversion';
import { csvCell, csvText } from '../../domain/csv';
import { packageKeys } from '../../domain/packages';
import {
  campaignsPerAddressDay,
  campaignsPerLinkDay,
  otherCampaign,
  visitorsPerAddressLinkDay,
  visitsPerAddressDay,
} from '../campaigns';
import {
  compareIds,
  countAll,
  countColumns,
  outcomeColumns,
  type Count,
  type Counts,
} from '../counts';
import { defineCommand, parseSince, visible } from './command';

export type ReportFormat = 'table' | 'csv';

/** One link's numbers: a marketer (null: a general link) and a package (null: the free trial). */
export type ReportRow = Count<'marketing_id' | 'package_key'>;

/** One campaign's numbers: the utm_source and utm_campaign of the page (null: none). */
export type CampaignReportRow = Count<'utm_source' | 'utm_campaign'>;

export const reportNotes = [
  `Visits are unauthenticated counts: anyone can add to them. A visitor (address and browser) counts once per link and UTC day; one address (IPv6: one /48) counts at most ${visitorsPerAddressLinkDay} visitors a link and ${visitsPerAddressDay} visits a day.`,
  'Unique visitors are counted per UTC day (the visitor hash rotates daily): one person on two days counts twice.',
  'Leads are first sign-ups; a repeat (same phone and notes within 24 hours) is counted apart, for the link of the lead it repeats.',
  'Deleted submissions (RETENTION_DAYS, erasure) are still counted, from daily totals.',
  'Conversion is leads / unique visitors. "(general)" is a link without a marketer; link-preview fetchers are not visits.',
  "Contacted, qualified, clients and lost are leads whose status in the provider's CRM is that now (npm run lead, POST /api/leads/:id/status), counted on the day each lead signed up; the client rate is clients / leads.",
  'Flagged is leads with a doubt on their credit (docs/flags.md), counted among the leads until decided; not credited is leads whose latest decision took their credit, counted there and in no other column.',
];

export const campaignReportNotes = [
  "A visit counts for the campaign of the visitor's first view of the link that day; a lead for the campaign of the page it was sent from, and a repeat for its lead's.",
  '"(none)" is a page opened without utm_source or utm_campaign. Unique visitors and conversion are counted as in the report per link.',
  `"(other)" is the campaigns past a limit: ${campaignsPerLinkDay} a link names in a day (those with the most leads, then visits), for its visits and leads alike, and ${campaignsPerAddressDay} one address names in a day's visits.`,
];

/** The report per campaign's order: sources and campaigns by name, other next, none last. */
export function sortCampaigns(rows: CampaignReportRow[]): CampaignReportRow[] {
  const rank = (value: string | null) => (value === null ? 2 : value === otherCampaign ? 1 : 0);
  const byName = (a: string | null, b: string | null) =>
    a === b ? 0 : rank(a) - rank(b) || a!.localeCompare(b!, 'en');
  return rows.sort(
    (a, b) => byName(a.utm_source, b.utm_source) || byName(a.utm_campaign, b.utm_campaign),
  );
}

/** The report per link's order: marketers by id, general links last. */
export function sortLinks(rows: ReportRow[]): ReportRow[] {
  return rows.sort(compareRows);
}

// The free trial first, then the packages in the catalogue's order, then unknown keys.
function packageOrder(key: string | null): string {
  if (key === null) return '0';
  const index = packageKeys.indexOf(key as (typeof packageKeys)[number]);
  return index === -1 ? `2${key}` : `1${index}`;
}

function compareRows(a: ReportRow, b: ReportRow): number {
  if ((a.marketing_id === null) !== (b.marketing_id === null)) {
    return a.marketing_id === null ? 1 : -1;
  }
  const byMarketer = compareIds(a.marketing_id ?? '', b.marketing_id ?? '');
  return byMarketer !== 0
    ? byMarketer
    : packageOrder(a.package_key) < packageOrder(b.package_key)
      ? -1
      : 1;
}

/** Leads per hundred unique visitors (or clients per hundred leads), one decimal; '—' for none. */
export function conversionRate(leads: number, visitors: number): string {
  return percent(leads, visitors)?.toFixed(1).concat('%') ?? '—';
}

function total(rows: Counts[]): Counts {
  const sum = Object.fromEntries(countColumns.map((column) => [column, 0])) as Counts;
  for (const row of rows) for (const column of countColumns) sum[column] += row[column];
  return sum;
}

/** How a report of one kind names its rows: two text columns, then the counts. */
interface Layout<Row> {
  title: string;
  headings: [string, string];
  csvHeadings: [string, string];
  /** The row's two values; null is shown as `none` in the table and empty in CSV. */
  labels(row: Row): [string | null, string | null];
  none: [string, string];
  notes: string[];
}

const linkLayout: Layout<ReportRow> = {
  title: 'Visits and sign-ups per link',
  headings: ['Marketer', 'Package'],
  csvHeadings: ['marketing_id', 'package_key'],
  labels: (row) => [row.marketing_id, row.package_key],
  none: ['(general)', '(free trial)'],
  notes: reportNotes,
};

// The campaigns past a limit (campaigns.ts), in the table and in CSV alike.
const otherLabel = (value: string | null) => (value === otherCampaign ? '(other)' : value);

const campaignLayout: Layout<CampaignReportRow> = {
  title: 'Visits and sign-ups per campaign',
  headings: ['Source', 'Campaign'],
  csvHeadings: ['utm_source', 'utm_campaign'],
  labels: (row) => [otherLabel(row.utm_source), otherLabel(row.utm_campaign)],
  none: ['(none)', '(none)'],
  notes: campaignReportNotes,
};

/**
 * The report as text: an aligned table with a total and the notes above, or CSV (one row per
 * link, no total; with a UTF-8 byte order mark and CRLF, as the export writes it).
 */
export function formatReport(rows: ReportRow[], format: ReportFormat, since?: Date): string {
  return formatRows(linkLayout, rows, format, since);
}

/** The report per campaign, as formatReport writes the one per link. */
export function formatCampaignReport(
  rows: CampaignReportRow[],
  format: ReportFormat,
  since?: Date,
): string {
  return formatRows(campaignLayout, rows, format, since);
}

function formatRows<Row extends Counts>(
  layout: Layout<Row>,
  rows: Row[],
  format: ReportFormat,
  since?: Date,
): string {
  if (format === 'csv') {
    const header = [
      ...layout.csvHeadings,
      'visits,unique_visitors,leads,repeats,conversion_percent',
      'contacted,qualified,clients,lost,client_percent',
      'flagged,not_credited',
    ].join(',');
    const rate = (part: number, whole: number) => percent(part, whole)?.toFixed(1) ?? '';
    const lines = rows.map((row) =>
      [
        ...layout.labels(row).map(csvCell),
        row.visits,
        row.unique_visitors,
        row.leads,
        row.repeats,
        rate(row.leads, row.unique_visitors),
        ...outcomeColumns.map((outcome) => row[outcome]),
        rate(row.clients, row.leads),
        row.flagged,
        row.not_credited,
      ].join(','),
    );
    return csvText([header, ...lines]);
  }

  const cells = (label: [string, string], row: Counts) => [
    ...label.map(visible),
    String(row.visits),
    String(row.unique_visitors),
    String(row.leads),
    String(row.repeats),
    conversionRate(row.leads, row.unique_visitors),
    ...outcomeColumns.map((outcome) => String(row[outcome])),
    conversionRate(row.clients, row.leads),
    String(row.flagged),
    String(row.not_credited),
  ];
  const table = [
    [
      ...layout.headings,
      'Visits',
      'Unique visitors',
      'Leads',
      'Repeats',
      'Conversion',
      'Contacted',
      'Qualified',
      'Clients',
      'Lost',
      'Client rate',
      'Flagged',
      'Not credited',
    ],
    ...rows.map((row) => {
      const [first, second] = layout.labels(row);
      return cells([first ?? layout.none[0], second ?? layout.none[1]], row);
    }),
    cells(['Total', ''], total(rows)),
  ];
  const widths = table[0]!.map((_, column) =>
    Math.max(...table.map((line) => line[column]!.length)),
  );
  // Text columns to the left, numbers to the right.
  const lines = table.map((line) =>
    line
      .map((cell, column) =>
        column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ')
      .trimEnd(),
  );
  const period = since === undefined ? 'all time' : `since ${since.toISOString()}`;
  return [
    `${layout.title}, ${period}`,
    '',
    ...lines.slice(0, -1),
    '-'.repeat(lines[0]!.length),
    lines.at(-1),
    '',
    ...layout.notes,
    '',
  ].join('\n');
}

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
