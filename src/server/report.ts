import { packageKeys } from '../domain/packages';
import { otherCampaign } from './campaigns';
import { csvCell, visible } from './cli/command';
import type { Counted, SignUpCount } from './registrations/sign-up-counts';
import type { CampaignVisits, LinkVisits } from './visits/visit-repository';

export type ReportFormat = 'table' | 'csv';

/**
 * Visits, and the count of a lead: first sign-ups (a repeat, same phone and notes within 24
 * hours, is counted apart) and of those the ones whose status is now each outcome.
 */
interface Counts extends Counted {
  visits: number;
  visitors: number;
}

const zero = (): Counts => ({
  visits: 0,
  visitors: 0,
  leads: 0,
  repeats: 0,
  contacted: 0,
  qualified: 0,
  clients: 0,
  lost: 0,
});
const outcomes = ['contacted', 'qualified', 'clients', 'lost'] as const;

function addSignUps(row: Counts, counted: Counted): void {
  row.leads += counted.leads;
  row.repeats += counted.repeats;
  for (const outcome of outcomes) row[outcome] += counted[outcome];
}

/** One link's numbers: a marketer (null: a general link) and a package (null: the free trial). */
export interface ReportRow extends Counts {
  marketingId: string | null;
  packageKey: string | null;
}

/** One campaign's numbers: the utm_source and utm_campaign of the page (null: none). */
export interface CampaignReportRow extends Counts {
  utmSource: string | null;
  utmCampaign: string | null;
}

export const reportNotes = [
  'Visits are unauthenticated counts: anyone can add to them. A visitor (address and browser) counts once per link and UTC day; one address (IPv6: one /48) counts at most 10 visitors a link and 100 visits a day.',
  'Unique visitors are counted per UTC day (the visitor hash rotates daily): one person on two days counts twice.',
  'Leads are first sign-ups; a repeat (same phone and notes within 24 hours) is counted apart, for the link of the lead it repeats.',
  'Deleted submissions (RETENTION_DAYS, erasure) are still counted, from daily totals.',
  'Conversion is leads / unique visitors. "(general)" is a link without a marketer; link-preview fetchers are not visits.',
  "Contacted, qualified, clients and lost are leads whose status in the provider's CRM is that now (npm run lead, POST /api/leads/:id/status), counted on the day each lead signed up; the client rate is clients / leads.",
];

export const campaignReportNotes = [
  "A visit counts for the campaign of the visitor's first view of the link that day; a lead for the campaign of the page it was sent from, and a repeat for its lead's.",
  '"(none)" is a page opened without utm_source or utm_campaign. Unique visitors and conversion are counted as in the report per link.',
  '"(other)" is the campaigns past a limit: 20 a link names in a day (for leads, those with the most), and 10 one address names in a day\'s visits.',
];

/** Visits and sign-ups side by side, one row per campaign: sources and campaigns by name, none last. */
export function buildCampaignReport(
  visits: CampaignVisits[],
  signUps: SignUpCount<'utm_source' | 'utm_campaign'>[],
): CampaignReportRow[] {
  const rows = new Map<string, CampaignReportRow>();
  const row = ({
    utmSource,
    utmCampaign,
  }: {
    utmSource: string | null;
    utmCampaign: string | null;
  }) => {
    const key = JSON.stringify([utmSource, utmCampaign]);
    let found = rows.get(key);
    if (found === undefined) {
      found = { utmSource, utmCampaign, ...zero() };
      rows.set(key, found);
    }
    return found;
  };
  for (const campaign of visits) {
    const found = row(campaign);
    found.visits += campaign.visits;
    found.visitors += campaign.visitors;
  }
  for (const campaign of signUps) {
    addSignUps(
      row({ utmSource: campaign.utm_source, utmCampaign: campaign.utm_campaign }),
      campaign,
    );
  }
  // By name, then other, none last.
  const rank = (value: string | null) => (value === null ? 2 : value === otherCampaign ? 1 : 0);
  const byName = (a: string | null, b: string | null) =>
    a === b ? 0 : rank(a) - rank(b) || a!.localeCompare(b!, 'en');
  return [...rows.values()].sort(
    (a, b) => byName(a.utmSource, b.utmSource) || byName(a.utmCampaign, b.utmCampaign),
  );
}

/** Visits and sign-ups side by side, one row per link: marketers by id, general links last. */
export function buildReport(
  visits: LinkVisits[],
  signUps: SignUpCount<'marketing_id' | 'package_key'>[],
): ReportRow[] {
  const rows = new Map<string, ReportRow>();
  const row = (marketingId: string | null, packageKey: string | null) => {
    const key = JSON.stringify([marketingId, packageKey]);
    let found = rows.get(key);
    if (found === undefined) {
      found = { marketingId, packageKey, ...zero() };
      rows.set(key, found);
    }
    return found;
  };
  for (const link of visits) {
    const found = row(link.marketingId, link.packageKey);
    found.visits += link.visits;
    found.visitors += link.visitors;
  }
  for (const link of signUps) addSignUps(row(link.marketing_id, link.package_key), link);
  return [...rows.values()].sort(compareRows);
}

// The free trial first, then the packages in the catalogue's order, then unknown keys.
function packageOrder(key: string | null): string {
  if (key === null) return '0';
  const index = packageKeys.indexOf(key as (typeof packageKeys)[number]);
  return index === -1 ? `2${key}` : `1${index}`;
}

function compareRows(a: ReportRow, b: ReportRow): number {
  if ((a.marketingId === null) !== (b.marketingId === null)) return a.marketingId === null ? 1 : -1;
  const byMarketer = (a.marketingId ?? '').localeCompare(b.marketingId ?? '', 'en', {
    numeric: true,
  });
  return byMarketer !== 0
    ? byMarketer
    : packageOrder(a.packageKey) < packageOrder(b.packageKey)
      ? -1
      : 1;
}

/** Leads per hundred unique visitors (or clients per hundred leads), one decimal; '—' for none. */
export function conversionRate(leads: number, visitors: number): string {
  return visitors === 0 ? '—' : `${((leads / visitors) * 100).toFixed(1)}%`;
}

function total(rows: Counts[]): Counts {
  const sum = zero();
  for (const row of rows) {
    sum.visits += row.visits;
    sum.visitors += row.visitors;
    addSignUps(sum, row);
  }
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
  labels: (row) => [row.marketingId, row.packageKey],
  none: ['(general)', '(free trial)'],
  notes: reportNotes,
};

// The campaigns past a limit (campaigns.ts), in the table and in CSV alike.
const otherLabel = (value: string | null) => (value === otherCampaign ? '(other)' : value);

const campaignLayout: Layout<CampaignReportRow> = {
  title: 'Visits and sign-ups per campaign',
  headings: ['Source', 'Campaign'],
  csvHeadings: ['utm_source', 'utm_campaign'],
  labels: (row) => [otherLabel(row.utmSource), otherLabel(row.utmCampaign)],
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
    ].join(',');
    const percent = (part: number, whole: number) =>
      whole === 0 ? '' : ((part / whole) * 100).toFixed(1);
    const lines = rows.map((row) =>
      [
        ...layout.labels(row).map(csvCell),
        row.visits,
        row.visitors,
        row.leads,
        row.repeats,
        percent(row.leads, row.visitors),
        ...outcomes.map((outcome) => row[outcome]),
        percent(row.clients, row.leads),
      ].join(','),
    );
    return `\uFEFF${[header, ...lines].map((line) => `${line}\r\n`).join('')}`;
  }

  const cells = (label: [string, string], row: Counts) => [
    ...label.map(visible),
    String(row.visits),
    String(row.visitors),
    String(row.leads),
    String(row.repeats),
    conversionRate(row.leads, row.visitors),
    ...outcomes.map((outcome) => String(row[outcome])),
    conversionRate(row.clients, row.leads),
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
