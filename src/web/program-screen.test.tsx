import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { arForm } from '../domain/catalogue/form';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram, arReview } from '../domain/catalogue/program';
import { ar } from '../domain/catalogue/shared';
import {
  leadReviewPath,
  reviewListPath,
  type LeadReview,
  type ReviewLead,
  type ReviewList,
} from '../domain/lead-review';
import { marketerStatsMeta } from '../domain/marketer-stats';
import { notificationsPath } from '../domain/notifications';
import { packageLabels } from '../domain/packages';
import {
  addDays,
  programStatsPath,
  type ProgramNumbers,
  type ProgramStats,
} from '../domain/program-stats';
import { formatDate, formatFullDate, formatNumber, formatRate } from '../domain/stats-format';
import { formatTime } from './stats-format';
import { renderApp } from './test-helpers';

const path = '/register/program';

const numbers = (leads: number, clients: number): ProgramNumbers => ({
  visits: leads * 10,
  unique_visitors: leads * 8,
  leads,
  clients,
  conversion_percent: leads === 0 ? null : 12.5,
  client_percent: leads === 0 ? null : Math.round((clients / leads) * 1000) / 10,
  flagged: leads % 3,
  not_credited: leads % 2,
});

const days = ['2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22'];

// The directory's names of the first three marketers, and their teams: m-1 and m-2 in lead-1's,
// m-3 in none; the others it does not know.
const directory: Record<string, { name: string; team_leader_id: string | null }> = {
  'm-1': { name: 'إيمان الزهراني', team_leader_id: 'lead-1' },
  'm-2': { name: 'فاطمة', team_leader_id: 'lead-1' },
  'm-3': { name: 'هدى العمري', team_leader_id: null },
};

// 55 marketers, most leads first as the server sends them: m-1 has 60 leads and 1 client, m-55
// has 6 leads and 55 clients; then the general links.
const marketers: ProgramStats['marketers'] = [
  ...Array.from({ length: 55 }, (_, index) => ({
    marketing_id: `m-${index + 1}`,
    name: directory[`m-${index + 1}`]?.name ?? null,
    team_leader_id: directory[`m-${index + 1}`]?.team_leader_id ?? null,
    ...numbers(60 - index, index + 1),
  })),
  { marketing_id: null, name: null, team_leader_id: null, ...numbers(3, 0) },
];

const stats: ProgramStats = {
  days: 7,
  from: '2026-11-17',
  to: '2026-11-23',
  totals: {
    visits: 12_500,
    unique_visitors: 10_000,
    leads: 1_250,
    contacted: 400,
    qualified: 120,
    clients: 90,
    lost: 35,
    conversion_percent: 12.5,
    client_percent: 7.2,
    flagged: 14,
    not_credited: 3,
  },
  // Visits up a quarter, unique visitors the same, leads up from 1,000, contacted new, clients
  // down a tenth from 100, conversion down from 12.5 %, the client rate up from 7 %.
  previous: {
    from: '2026-11-10',
    to: '2026-11-16',
    totals: {
      visits: 10_000,
      unique_visitors: 10_000,
      leads: 1_000,
      contacted: 0,
      qualified: 120,
      clients: 100,
      lost: 35,
      conversion_percent: 10,
      client_percent: 10,
      flagged: 0,
      not_credited: 3,
    },
  },
  by_day: [...days, '2026-11-23'].map((date, index) => ({
    date,
    visits: 100 * index,
    leads: 10 * index,
    clients: index,
  })),
  marketers,
  // m-1 and m-2 added up: 60 and 59 leads, 1 and 2 clients.
  teams: [
    {
      team_leader_id: 'lead-1',
      name: 'نورة القحطاني',
      members: ['m-1', 'm-2'],
      ...numbers(119, 3),
    },
  ],
  campaigns: [
    { utm_source: 'whatsapp', utm_campaign: 'ramadan', other: false, ...numbers(20, 2) },
    { utm_source: '=HYPERLINK("x")', utm_campaign: null, other: false, ...numbers(5, 1) },
    { utm_source: null, utm_campaign: null, other: true, ...numbers(4, 0) },
    { utm_source: null, utm_campaign: null, other: false, ...numbers(2, 0) },
  ],
  packages: [
    { package_key: null, ...numbers(30, 3) },
    { package_key: 'premium_reco', ...numbers(10, 4) },
  ],
};

// Two flagged leads awaiting a decision, the oldest first: one contested by marketer m-7's
// earlier lead.
const reviewList: ReviewList = {
  count: 2,
  leads: [
    {
      id: 'b5d2c0de-0000-4000-8000-000000000001',
      created_at: '2026-11-23T08:00:00.000Z',
      marketing_id: null,
      name: null,
      package_key: null,
      phone_end: '101',
      flags: [{ flag: 'fast', other: null }],
    },
    {
      id: 'b5d2c0de-0000-4000-8000-000000000002',
      created_at: '2026-11-23T09:30:00.000Z',
      marketing_id: 'm-42',
      name: 'سلمى العتيبي',
      package_key: 'premium_reco',
      phone_end: '678',
      flags: [
        { flag: 'contested', other: { marketing_id: 'm-7', name: null } },
        { flag: 'same_address', other: null },
      ],
    },
  ],
  // A lead decided twice: not credited, then credited again (the latest first).
  decided: [
    {
      id: 'b5d2c0de-0000-4000-8000-000000000003',
      created_at: '2026-11-22T07:00:00.000Z',
      marketing_id: 'm-9',
      name: null,
      package_key: 'premium_reco',
      phone_end: '303',
      flags: [{ flag: 'burst', other: null }],
      reviews: [
        {
          credited: true,
          reviewed_by: 'manager-2',
          reviewed_at: '2026-11-22T09:00:00.000Z',
          note: '',
        },
        {
          credited: false,
          reviewed_by: 'manager-1',
          reviewed_at: '2026-11-22T08:00:00.000Z',
          note: 'a test number',
        },
      ],
    },
  ],
};

/** The server's answers: the review list at its path, `answer` at any other. */
// The e-mails' section asks too: a server without e-mails (no SMTP_URL) answers 404.
const answering =
  (answer: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>) =>
  (input: RequestInfo | URL, init?: RequestInit) =>
    String(input) === notificationsPath
      ? json({ error: 'not found' }, 404)
      : String(input) === reviewListPath && init?.method !== 'POST'
        ? json(reviewList)
        : answer(input, init);

function stubFetch(answer: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>) {
  const fetch = vi.fn<typeof globalThis.fetch>(answering(answer));
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

const json = (body: unknown, status = 200) => Promise.resolve(Response.json(body, { status }));

/** The page as the server sends it with MARKETER_AUTH_* set, and the platform's stored token. */
function turnOn() {
  const meta = document.createElement('meta');
  meta.name = marketerStatsMeta;
  meta.content = 'platform_token';
  document.head.append(meta);
  localStorage.setItem('platform_token', JSON.stringify('eyJ.admin.token'));
}

function removeMeta() {
  document.head.querySelector(`meta[name="${marketerStatsMeta}"]`)?.remove();
}
beforeEach(removeMeta);
afterEach(removeMeta);
// The page writes its period into the address: each test opens the page at its own.
afterEach(() => window.history.replaceState(null, '', '/'));

async function openPage(answer: ProgramStats = stats) {
  turnOn();
  const fetch = stubFetch(() => json(answer));
  renderApp(path);
  await screen.findByText(arProgram.statLost);
  return fetch;
}

/** Presses the download button: the file's name and address, and its lines (the BOM checked). */
async function download() {
  let file: Blob | undefined;
  const createObjectURL = vi.fn((blob: Blob) => {
    file = blob;
    return 'blob:program';
  });
  // jsdom has neither.
  vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
  let saved: { href: string; download: string } | undefined;
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    saved = { href: this.getAttribute('href') ?? '', download: this.download };
  });
  fireEvent.click(screen.getByRole('button', { name: arProgram.download }));
  const bytes = new Uint8Array(await file!.arrayBuffer());
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  return { saved, lines: text.slice(1).split('\r\n') };
}

const table = (caption: string) => screen.getByRole('table', { name: caption });
const rowHeaders = (caption: string) =>
  within(table(caption))
    .getAllByRole('rowheader')
    .map((cell) => cell.textContent);

describe('the programme page', () => {
  it('shows the period’s totals for the stored token, with the page’s title and heading', async () => {
    const fetch = await openPage();
    expect(fetch).toHaveBeenCalledWith(
      '/api/program/stats?days=30',
      expect.objectContaining({ headers: { authorization: 'Bearer eyJ.admin.token' } }),
    );
    expect(screen.getByRole('heading', { level: 1, name: arProgram.heading })).toBeVisible();
    expect(document.title).toBe(ar.titleProgram(ar.brandDefault));
    const total = (label: string) =>
      screen.getByText(label, { selector: 'dt' }).nextElementSibling?.textContent;
    expect(total(arStats.statVisits)).toBe('12,500');
    expect(total(arStats.statUniqueVisitors)).toBe('10,000');
    expect(total(arStats.statSignUps)).toBe('1,250');
    expect(total(arProgram.statContacted)).toBe('400');
    expect(total(arProgram.statQualified)).toBe('120');
    expect(total(arStats.statClients)).toBe('90');
    expect(total(arProgram.statLost)).toBe('35');
    expect(total(arStats.statConversion)).toMatch(/12\.5/);
    expect(total(arStats.statClientRate)).toMatch(/7\.2/);
    expect(total(arProgram.statFlagged)).toBe('14');
    expect(total(arStats.statNotCredited)).toBe('3');
  });

  it('asks again for the period picked', async () => {
    const fetch = await openPage();
    fireEvent.change(screen.getByRole('combobox', { name: arStats.fieldPeriod }), {
      target: { value: '7' },
    });
    await waitFor(() =>
      expect(fetch).toHaveBeenLastCalledWith('/api/program/stats?days=7', expect.anything()),
    );
  });

  it('compares each total with the previous period: an arrow and a percentage, said in words, or new', async () => {
    await openPage();
    /** A total's comparison: what is drawn, what a screen reader says, and the figure before. */
    const compared = (label: string) => {
      const change = screen
        .getByText(label, { selector: 'dt' })
        .parentElement!.querySelector('dd.change')!;
      const drawn = change.querySelector('[aria-hidden="true"]');
      return {
        drawn: drawn?.textContent ?? null,
        said: change.querySelector('.visually-hidden')?.textContent ?? null,
        before: change.querySelector('.before')?.textContent,
      };
    };
    const percent = (value: number) => formatRate(value);
    expect(compared(arStats.statVisits)).toEqual({
      drawn: `↑ ${percent(25)}`,
      said: arProgram.changeUp(percent(25)),
      before: arProgram.previous('10,000'),
    });
    expect(compared(arStats.statUniqueVisitors)).toEqual({
      drawn: arProgram.changeNone,
      said: arProgram.changeNoneSaid,
      before: arProgram.previous('10,000'),
    });
    expect(compared(arStats.statSignUps).said).toBe(arProgram.changeUp(percent(25)));
    // None contacted in the previous period: new, not a percentage of nothing.
    expect(compared(arProgram.statContacted)).toEqual({
      drawn: arProgram.changeNew,
      said: arProgram.changeNewSaid,
      before: arProgram.previous('0'),
    });
    expect(compared(arStats.statClients)).toEqual({
      drawn: `↓ ${percent(10)}`,
      said: arProgram.changeDown(percent(10)),
      before: arProgram.previous('100'),
    });
    // Rates change by a share of the previous rate too: 10 % to 12.5 % is a quarter up.
    expect(compared(arStats.statConversion)).toEqual({
      drawn: `↑ ${percent(25)}`,
      said: arProgram.changeUp(percent(25)),
      before: arProgram.previous(percent(10)),
    });
    expect(compared(arStats.statClientRate).said).toBe(arProgram.changeDown(percent(28)));
    expect(compared(arProgram.statFlagged).drawn).toBe(arProgram.changeNew);
    expect(compared(arStats.statNotCredited).said).toBe(arProgram.changeNoneSaid);
    // The arrows are drawn only: a screen reader reads the words.
    for (const arrow of screen.getAllByText(/^[↑↓]/)) {
      expect(arrow).toHaveAttribute('aria-hidden', 'true');
    }
    expect(
      screen.getByText(
        arProgram.previousPeriod(
          arProgram.dates(formatFullDate('2026-11-10'), formatFullDate('2026-11-16')),
        ),
      ),
    ).toBeVisible();
  });

  it('tells no change of a rate that either period has not, and gives the previous one as it was', async () => {
    const before = { ...stats.previous.totals, unique_visitors: 0, conversion_percent: null };
    await openPage({ ...stats, previous: { ...stats.previous, totals: before } });
    const change = screen
      .getByText(arStats.statConversion, { selector: 'dt' })
      .parentElement!.querySelector('dd.change')!;
    // The previous period had leads and no visitors: its conversion in words, no arrow.
    expect(change).toHaveTextContent(arProgram.previous(arStats.conversionMoreLeads));
    expect(change.querySelector('[aria-hidden="true"]')).toBeNull();
  });

  it('opens the range the address names, and writes each period chosen into it', async () => {
    turnOn();
    window.history.replaceState(null, '', `${path}?from=2026-11-01&to=2026-11-15`);
    const fetch = stubFetch(() => json(stats));
    renderApp(path);
    await screen.findByText(arProgram.statLost);
    expect(fetch).toHaveBeenCalledWith(
      '/api/program/stats?from=2026-11-01&to=2026-11-15',
      expect.anything(),
    );
    const period = screen.getByRole('combobox', { name: arStats.fieldPeriod });
    expect(period).toHaveDisplayValue(arProgram.periodRange);
    expect(screen.getByLabelText(arProgram.rangeFrom)).toHaveValue('2026-11-01');
    expect(screen.getByLabelText(arProgram.rangeTo)).toHaveValue('2026-11-15');

    fireEvent.change(period, { target: { value: '90' } });
    await waitFor(() =>
      expect(fetch).toHaveBeenLastCalledWith('/api/program/stats?days=90', expect.anything()),
    );
    expect(window.location.search).toBe('?days=90');
    expect(screen.queryByLabelText(arProgram.rangeFrom)).toBeNull();

    // A range: its two dates, shown once pressed.
    fireEvent.change(period, { target: { value: 'range' } });
    fireEvent.change(screen.getByLabelText(arProgram.rangeFrom), {
      target: { value: '2026-10-01' },
    });
    fireEvent.change(screen.getByLabelText(arProgram.rangeTo), { target: { value: '2026-10-31' } });
    fireEvent.click(screen.getByRole('button', { name: arProgram.rangeShow }));
    await waitFor(() =>
      expect(fetch).toHaveBeenLastCalledWith(
        '/api/program/stats?from=2026-10-01&to=2026-10-31',
        expect.anything(),
      ),
    );
    expect(window.location.search).toBe('?from=2026-10-01&to=2026-10-31');
  });

  it('refuses a range it cannot show before asking, and says why beside its dates', async () => {
    const fetch = await openPage();
    // The numbers' requests alone: the review list asks for its own once loaded, at its time.
    const asked = () =>
      fetch.mock.calls.filter(([url]) => String(url).startsWith(programStatsPath)).length;
    const before = asked();
    expect(before).toBeGreaterThan(0);
    fireEvent.change(screen.getByRole('combobox', { name: arStats.fieldPeriod }), {
      target: { value: 'range' },
    });
    const [from, to] = [
      screen.getByLabelText(arProgram.rangeFrom),
      screen.getByLabelText(arProgram.rangeTo),
    ];
    const show = screen.getByRole('button', { name: arProgram.rangeShow });
    const today = new Date().toISOString().slice(0, 10);
    const refusals: [string, string, string][] = [
      ['2026-10-31', '2026-10-01', arProgram.errorRange.order],
      ['', '2026-10-01', arProgram.errorRange.dates],
      ['2024-01-01', '2025-01-01', arProgram.errorRange.length],
      [today, addDays(today, 1), arProgram.errorRange.future],
    ];
    for (const [first, last, error] of refusals) {
      fireEvent.change(from, { target: { value: first } });
      fireEvent.change(to, { target: { value: last } });
      fireEvent.click(show);
      expect(screen.getByRole('alert')).toHaveTextContent(error);
      expect(from).toHaveAccessibleDescription(error);
      expect(to).toHaveAttribute('aria-invalid', 'true');
    }
    expect(asked()).toBe(before);
  });

  it('shows 30 days for a range in the address it cannot show, with the range and why', async () => {
    turnOn();
    window.history.replaceState(null, '', `${path}?from=2026-11-15&to=2026-11-01`);
    const fetch = stubFetch(() => json(stats));
    renderApp(path);
    await screen.findByText(arProgram.statLost);
    expect(fetch).toHaveBeenCalledWith('/api/program/stats?days=30', expect.anything());
    expect(screen.getByRole('alert')).toHaveTextContent(arProgram.errorRange.order);
    expect(screen.getByLabelText(arProgram.rangeFrom)).toHaveValue('2026-11-15');
  });

  it('draws every day with dates on the axis and a legend, and the same numbers as a table', async () => {
    await openPage();
    const chart = screen.getByRole('figure');
    const legend = chart.querySelector('figcaption')!;
    expect(legend).toHaveTextContent(arStats.statsChart);
    for (const key of [arStats.statVisits, arStats.statSignUps, arStats.statClients]) {
      expect(within(legend).getByText(key)).toBeVisible();
    }
    const axis = chart.querySelector('.chart-axis')!;
    expect(axis).toHaveTextContent(formatDate('2026-11-17'));
    expect(axis).toHaveTextContent(formatDate('2026-11-23'));
    // Seven days of three bars each.
    expect(chart.querySelectorAll('svg rect')).toHaveLength(21);
    const days = within(chart).getByRole('table', { name: arStats.statsChart });
    const rows = within(days).getAllByRole('row');
    expect(rows).toHaveLength(8);
    expect(
      within(rows[7]!)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['600', '60', '6']);
    expect(within(rows[7]!).getByRole('rowheader')).toHaveTextContent(formatDate('2026-11-23'));
  });

  it('ranks the marketers by name, names the general links, and shows the first 50 until asked', async () => {
    await openPage();
    const region = screen.getByRole('region', { name: arProgram.byMarketer });
    expect(region).toHaveAttribute('tabindex', '0');
    const ids = rowHeaders(arProgram.byMarketer);
    expect(ids).toHaveLength(50);
    // By name with the id beside it; one the directory does not know, by id alone.
    expect(ids.slice(0, 4)).toEqual([
      arStats.named('إيمان الزهراني', 'm-1'),
      arStats.named('فاطمة', 'm-2'),
      arStats.named('هدى العمري', 'm-3'),
      'm-4',
    ]);
    const columns = within(table(arProgram.byMarketer))
      .getAllByRole('columnheader')
      .map((cell) => cell.textContent);
    expect(columns).toEqual([
      arStats.teamMember,
      arStats.statVisits,
      arStats.statUniqueVisitors,
      arStats.statSignUps,
      arStats.statClients,
      arStats.statConversion,
      arStats.statClientRate,
      arProgram.statFlagged,
      arStats.statNotCredited,
    ]);
    // m-1: 60 leads, none flagged (60 % 3), none not credited; m-2: 59, 2 flagged, 1 not credited.
    const second = within(table(arProgram.byMarketer)).getAllByRole('row')[2]!;
    expect(
      within(second)
        .getAllByRole('cell')
        .slice(-2)
        .map((cell) => cell.textContent),
    ).toEqual(['2', '1']);
    fireEvent.click(screen.getByRole('button', { name: arProgram.showAll(56) }));
    const all = rowHeaders(arProgram.byMarketer);
    expect(all).toHaveLength(56);
    expect(all.at(-1)).toBe(arProgram.general);
    expect(screen.queryByRole('button', { name: arProgram.showAll(56) })).toBeNull();
    expect(region).toHaveFocus();
  });

  it('finds a marketer by name or id, whatever the form of alef, taa marbuta or yaa typed', async () => {
    await openPage();
    const search = screen.getByRole('searchbox', { name: arProgram.search });
    // What it found, said as it changes: the search box's description.
    const found = () => document.getElementById(search.getAttribute('aria-describedby')!)!;
    expect(found()).toHaveAttribute('role', 'status');
    const find = (typed: string) => {
      fireEvent.change(search, { target: { value: typed } });
      return rowHeaders(arProgram.byMarketer);
    };
    // إيمان typed with a bare alef, with hamza below, or its family name alone.
    for (const typed of ['ايمان', 'إيمان', 'أيمان', 'الزهراني']) {
      expect(find(typed), typed).toEqual([arStats.named('إيمان الزهراني', 'm-1')]);
    }
    // فاطمة typed with a haa; هدى with a yaa, and هدي's name typed with an alef maqsura.
    expect(find('فاطمه')).toEqual([arStats.named('فاطمة', 'm-2')]);
    expect(find('هدي')).toEqual([arStats.named('هدى العمري', 'm-3')]);
    // By id, a part of it, in Arabic digits too: m-4 and m-40 to m-49.
    expect(find('m-4')).toHaveLength(11);
    expect(find('M-5٥')).toEqual(['m-55']);
    expect(found()).toHaveTextContent(arProgram.searchFound(1));
    // The general links by their name on the page.
    expect(find('العامة')).toEqual([arProgram.general]);
    fireEvent.change(search, { target: { value: 'لا أحد' } });
    expect(screen.queryByRole('table', { name: arProgram.byMarketer })).toBeNull();
    expect(found()).toHaveTextContent(arProgram.searchNone);
    // Emptied: every marketer again, the first 50 shown.
    expect(find('')).toHaveLength(50);
    expect(found()).toBeEmptyDOMElement();
  });

  it('shows each team by its leader’s name with its numbers, its members under it, and those in no team apart', async () => {
    await openPage();
    const teams = table(arProgram.teams);
    expect(
      within(teams)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual([
      arProgram.teamLeader,
      arStats.statVisits,
      arStats.statUniqueVisitors,
      arStats.statSignUps,
      arStats.statClients,
      arStats.statConversion,
      arStats.statClientRate,
      arProgram.statFlagged,
      arStats.statNotCredited,
    ]);
    const leader = within(teams).getByRole('button', {
      name: `${arStats.named('نورة القحطاني', 'lead-1')} (${arProgram.teamMembers(2)})`,
    });
    expect(leader).toHaveAttribute('aria-expanded', 'false');
    // The team's own numbers, as the server added them up: 1,190 visits, 119 leads, 3 clients.
    const teamRow = leader.closest('tr')!;
    expect(
      within(teamRow)
        .getAllByRole('cell')
        .slice(0, 4)
        .map((cell) => cell.textContent),
    ).toEqual([1190, 952, 119, 3].map(formatNumber));
    // Its members hidden until the leader's button is pressed.
    expect(
      within(teams).queryByRole('rowheader', { name: arStats.named('فاطمة', 'm-2') }),
    ).toBeNull();
    fireEvent.click(leader);
    expect(leader).toHaveAttribute('aria-expanded', 'true');
    const members = leader.getAttribute('aria-controls')!.split(' ');
    expect(
      members.map((id) => document.getElementById(id)?.querySelector('th')?.textContent),
    ).toEqual([arStats.named('إيمان الزهراني', 'm-1'), arStats.named('فاطمة', 'm-2')]);
    // Each member opens their own page, as in the marketers' table.
    expect(
      within(teams)
        .getByRole('link', { name: arStats.named('فاطمة', 'm-2') })
        .getAttribute('href'),
    ).toMatch(/^\/register\/program\/marketers\/m-2\?/);
    // The general links and every other marketer, m-3 among them, apart.
    const apart = within(teams).getByRole('button', {
      name: `${arProgram.noTeam} (${arProgram.teamMembers(54)})`,
    });
    fireEvent.click(apart);
    const shown = rowHeaders(arProgram.teams);
    expect(shown).toContain(arProgram.general);
    expect(shown).toContain(arStats.named('هدى العمري', 'm-3'));
    expect(shown.filter((name) => name === arStats.named('فاطمة', 'm-2'))).toHaveLength(1);
  });

  it('sorts the marketers by clients, most first, then fewest first', async () => {
    await openPage();
    const marketersTable = table(arProgram.byMarketer);
    const leads = within(marketersTable).getByRole('columnheader', { name: arStats.statSignUps });
    expect(leads).toHaveAttribute('aria-sort', 'descending');
    const clients = within(marketersTable).getByRole('columnheader', {
      name: arStats.statClients,
    });
    expect(clients).toHaveAttribute('aria-sort', 'none');
    fireEvent.click(within(clients).getByRole('button', { name: arStats.statClients }));
    expect(clients).toHaveAttribute('aria-sort', 'descending');
    expect(leads).toHaveAttribute('aria-sort', 'none');
    expect(rowHeaders(arProgram.byMarketer).slice(0, 3)).toEqual(['m-55', 'm-54', 'm-53']);
    const first = within(marketersTable).getAllByRole('row')[1]!;
    expect(within(first).getAllByRole('cell')[3]).toHaveTextContent('55');
    fireEvent.click(within(clients).getByRole('button', { name: arStats.statClients }));
    expect(clients).toHaveAttribute('aria-sort', 'ascending');
    expect(rowHeaders(arProgram.byMarketer)[0]).toBe(arProgram.general);
  });

  it('opens each marketer’s own page from their name, on the period shown', async () => {
    window.history.replaceState(null, '', `${path}?from=2026-11-01&to=2026-11-15`);
    await openPage();
    const marketers = table(arProgram.byMarketer);
    expect(
      within(marketers)
        .getByRole('link', { name: arStats.named('إيمان الزهراني', 'm-1') })
        .getAttribute('href'),
    ).toBe('/register/program/marketers/m-1?from=2026-11-01&to=2026-11-15');
    // The general links are no marketer: no page of their own.
    expect(within(marketers).queryByRole('link', { name: arProgram.general })).toBeNull();
  });

  it('names the campaigns and the packages, “other” and “none” included', async () => {
    await openPage();
    const campaigns = within(table(arProgram.byCampaign)).getAllByRole('row').slice(1);
    const labels = (row: HTMLElement) =>
      [within(row).getByRole('rowheader'), within(row).getAllByRole('cell')[0]!].map(
        (cell) => cell.textContent,
      );
    expect(campaigns.map(labels)).toEqual([
      ['whatsapp', 'ramadan'],
      ['=HYPERLINK("x")', arProgram.none],
      [arProgram.other, arProgram.other],
      [arProgram.none, arProgram.none],
    ]);
    expect(rowHeaders(arStats.statsByPackage)).toEqual([
      ar.headingFreeTrial,
      packageLabels.premium_reco,
    ]);
  });

  it('downloads the period as a CSV file Excel opens, formulas disarmed', async () => {
    await openPage();
    const { saved, lines } = await download();
    expect(saved).toEqual({ href: 'blob:program', download: 'program_2026-11-17_2026-11-23.csv' });
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe(
      'table,marketing_id,name,team_leader_id,team_name,utm_source,utm_campaign,package_key,visits,unique_visitors,leads,clients,conversion_percent,client_percent,flagged,not_credited,notes,from,to',
    );
    // A marketer with their name and team (the leader's id and name); one the directory does
    // not know, and the general links, with empty cells.
    expect(lines[1]).toBe(
      'marketers,m-1,إيمان الزهراني,lead-1,نورة القحطاني,,,,600,480,60,1,12.5,1.7,0,0,,2026-11-17,2026-11-23',
    );
    expect(lines[3]).toBe(
      'marketers,m-3,هدى العمري,,,,,,580,464,58,3,12.5,5.2,1,0,,2026-11-17,2026-11-23',
    );
    expect(lines[4]).toBe('marketers,m-4,,,,,,,570,456,57,4,12.5,7.0,0,1,,2026-11-17,2026-11-23');
    expect(lines).toContain('marketers,,,,,,,,30,24,3,0,12.5,0.0,0,1,,2026-11-17,2026-11-23');
    expect(lines).toContain(
      'teams,,,lead-1,نورة القحطاني,,,,1190,952,119,3,12.5,2.5,2,1,,2026-11-17,2026-11-23',
    );
    expect(lines).toContain(
      `campaigns,,,,,"'=HYPERLINK(""x"")",,,50,40,5,1,12.5,20.0,2,1,,2026-11-17,2026-11-23`,
    );
    expect(lines).toContain(
      'campaigns,,,,,(other),(other),,40,32,4,0,12.5,0.0,1,0,,2026-11-17,2026-11-23',
    );
    expect(lines).toContain(
      'packages,,,,,,,premium_reco,100,80,10,4,12.5,40.0,1,0,,2026-11-17,2026-11-23',
    );
    expect(lines).toHaveLength(1 + 56 + 1 + 4 + 2 + 1);
  });

  describe('where the leads outnumber the counted visitors', () => {
    // The totals and m-1 with one visitor and two leads (200 % until now), a campaign's leads
    // sent with no visit at all; m-2 and the rest as before.
    const moreLeads = (leads: number, visitors: number) => ({
      visits: visitors,
      unique_visitors: visitors,
      leads,
      conversion_percent: visitors === 0 ? null : (leads / visitors) * 100,
    });
    const m1 = arStats.named('إيمان الزهراني', 'm-1');
    const m2 = arStats.named('فاطمة', 'm-2');
    const answer: ProgramStats = {
      ...stats,
      totals: { ...stats.totals, ...moreLeads(1_300, 1_250) },
      marketers: [{ ...marketers[0]!, ...moreLeads(2, 1) }, ...marketers.slice(1)],
      campaigns: [
        { ...stats.campaigns[0]!, ...moreLeads(3, 0), utm_source: 'crm', utm_campaign: null },
      ],
    };

    it('says so in words, never a figure above 100 %, and the note says why', async () => {
      await openPage(answer);
      const total = screen.getByText(arStats.statConversion, { selector: 'dt' }).nextElementSibling;
      expect(total).toHaveTextContent(arStats.conversionMoreLeads);
      expect(screen.getByText(arStats.conversionMoreLeadsNote)).toBeVisible();
      // m-1, with two leads, is last by leads: after «show all».
      fireEvent.click(screen.getByRole('button', { name: arProgram.showAll(56) }));
      const marketersTable = table(arProgram.byMarketer);
      const conversionCell = (id: string) =>
        within(
          within(marketersTable).getByRole('rowheader', { name: id }).closest('tr')!,
        ).getAllByRole('cell')[4];
      expect(conversionCell(m1)).toHaveTextContent(arStats.conversionMoreLeads);
      expect(conversionCell(m2)).toHaveTextContent('12.5');
      // The campaign's cells: its campaign, then its numbers.
      expect(
        within(within(table(arProgram.byCampaign)).getAllByRole('row')[1]!).getAllByRole('cell')[5],
      ).toHaveTextContent(arStats.conversionMoreLeads);
      // Every conversion shown (Intl writes marks around the sign) is 100 % or less.
      const conversions = [
        arProgram.byMarketer,
        arProgram.teams,
        arProgram.byCampaign,
        arStats.statsByPackage,
      ]
        .flatMap((caption) => {
          const rows = within(table(caption)).getAllByRole('row');
          const column = within(rows[0]!)
            .getAllByRole('columnheader')
            .findIndex((heading) => heading.textContent === arStats.statConversion);
          return rows.slice(1).map((row) => row.querySelectorAll('th, td')[column]!.textContent);
        })
        .flatMap((text) => /^([\d.]+)\p{Cf}*%/u.exec(text ?? '')?.[1] ?? []);
      expect(conversions.length).toBeGreaterThan(50);
      expect(Math.max(...conversions.map(Number))).toBeLessThanOrEqual(100);

      // Sorted by conversion, the rates come first, most first; the words after them.
      fireEvent.click(within(marketersTable).getByRole('button', { name: arStats.statConversion }));
      expect(rowHeaders(arProgram.byMarketer)[0]).toBe(m2);
      expect(rowHeaders(arProgram.byMarketer).at(-1)).toBe(m1);
    });

    it('leaves the rate out of the CSV and says why in the row’s notes', async () => {
      await openPage(answer);
      const { lines } = await download();
      expect(lines[1]).toBe(
        `marketers,m-1,إيمان الزهراني,lead-1,نورة القحطاني,,,,1,1,2,1,,1.7,0,0,${arStats.conversionMoreLeadsNote},2026-11-17,2026-11-23`,
      );
      expect(lines[2]).toBe(
        'marketers,m-2,فاطمة,lead-1,نورة القحطاني,,,,590,472,59,2,12.5,3.4,2,1,,2026-11-17,2026-11-23',
      );
      expect(lines).toContain(
        `campaigns,,,,,crm,,,0,0,3,2,,10.0,2,0,${arStats.conversionMoreLeadsNote},2026-11-17,2026-11-23`,
      );
    });

    it('shows no note where every conversion is a rate', async () => {
      await openPage();
      expect(screen.queryByText(arStats.conversionMoreLeadsNote)).toBeNull();
    });
  });

  it('says “too many requests” when the server says so, rather than a failure', async () => {
    turnOn();
    stubFetch(() => json({ error: ar.errorTooManyRequests }, 429));
    renderApp(path);
    expect(await screen.findByRole('alert')).toHaveTextContent(ar.errorTooManyRequests);
    expect(screen.getByRole('button', { name: arStats.buttonRetry })).toBeVisible();
  });

  it('says when the numbers could not be loaded, and tries again', async () => {
    turnOn();
    const fetch = stubFetch(() => json({ error: arForm.errorGeneric }, 503));
    renderApp(path);
    expect(await screen.findByRole('alert')).toHaveTextContent(arStats.errorStats);
    fetch.mockImplementation(answering(() => json(stats)));
    fireEvent.click(screen.getByRole('button', { name: arStats.buttonRetry }));
    expect(await screen.findByText(arProgram.statLost)).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it.each([
    [401, arProgram.errorSignIn],
    [403, ar.errorNotAuthorized],
    [404, arProgram.off],
  ])('says why when the server answers %i, and shows no numbers', async (status, message) => {
    turnOn();
    stubFetch(() => json({ error: 'refused' }, status));
    renderApp(path);
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(screen.queryByRole('combobox', { name: arStats.fieldPeriod })).toBeNull();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('says the feature is off, and asks nothing, without marketer auth', async () => {
    const fetch = stubFetch(() => json(stats));
    renderApp(path);
    expect(await screen.findByText(arProgram.off)).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: arProgram.heading })).toBeVisible();
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('the review list', () => {
  const list = () => screen.getByRole('region', { name: arReview.heading(2) });

  it('comes under the numbers once they are in, so that they do not push it down the page', async () => {
    turnOn();
    let answer: (response: Response) => void = () => {};
    stubFetch(() => new Promise((resolve) => (answer = resolve)));
    renderApp(path);
    expect(await screen.findByText(arStats.statsLoading)).toBeInTheDocument();
    expect(screen.queryByText(arReview.intro)).toBeNull();
    answer(Response.json(stats));
    expect(await screen.findByRole('region', { name: arReview.heading(2) })).toBeVisible();
    expect(screen.getByText(arProgram.statLost)).toBeInTheDocument();
  });
  const lead = (time: string, marketer: string) =>
    within(list()).getByRole('article', { name: arReview.lead(formatTime(time), marketer) });

  it('lists the flagged leads awaiting a decision, their count in its heading, marketers by name, with no prospect', async () => {
    await openPage();
    await within(await screen.findByRole('region', { name: arReview.heading(2) })).findAllByRole(
      'article',
    );
    // By the directory's name with the id beside it; m-7, whom it does not know, by id alone.
    const contested = lead('2026-11-23T09:30:00.000Z', arStats.named('سلمى العتيبي', 'm-42'));
    expect(within(contested).getByText(packageLabels.premium_reco)).toBeVisible();
    expect(within(contested).getByText('•••••••••678')).toBeInTheDocument();
    expect(within(contested).getByText(arReview.phoneEnding('678'))).toBeInTheDocument();
    const reasons = within(contested).getByRole('list', { name: arReview.reasons });
    expect(
      within(reasons)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      `${arReview.flags.contested}، ${arReview.contestedBy} m-7`,
      arReview.flags.same_address,
    ]);
    const general = lead('2026-11-23T08:00:00.000Z', arProgram.general);
    expect(within(general).getByText(ar.headingFreeTrial)).toBeVisible();
    expect(within(general).getByText(arReview.flags.fast)).toBeVisible();
    // The oldest first, as the server sends them.
    expect(within(list()).getAllByRole('article')[0]).toBe(general);
  });

  it('records a decision with its note, shows it beside the lead, and counts one fewer', async () => {
    const fetch = await openPage();
    await within(await screen.findByRole('region', { name: arReview.heading(2) })).findAllByRole(
      'article',
    );
    const first = reviewList.leads[1];
    const recorded = {
      id: first!.id,
      credited: false,
      reviewed_by: 'manager-1',
      reviewed_at: '2026-11-23T10:00:00.000Z',
      note: 'the same person',
    };
    let answer: (response: Response) => void = () => {};
    fetch.mockImplementation(answering(() => new Promise((resolve) => (answer = resolve))));
    const contested = lead('2026-11-23T09:30:00.000Z', arStats.named('سلمى العتيبي', 'm-42'));
    fireEvent.change(within(contested).getByRole('textbox', { name: arReview.note }), {
      target: { value: 'the same person' },
    });
    fireEvent.click(within(contested).getByRole('button', { name: arReview.notCredited }));
    expect(await within(contested).findByRole('status')).toHaveTextContent(arReview.saving);
    expect(within(contested).getByRole('group', { name: arReview.decision })).toBeDisabled();
    expect(fetch).toHaveBeenLastCalledWith(
      leadReviewPath(first!.id),
      expect.objectContaining({
        method: 'POST',
        body: JSON.stringify({ credited: false, note: 'the same person' }),
        headers: expect.objectContaining({ authorization: 'Bearer eyJ.admin.token' }) as unknown,
      }),
    );
    answer(Response.json(recorded));
    expect(
      await screen.findByRole('heading', { level: 2, name: arReview.heading(1) }),
    ).toBeVisible();
    const decided = screen.getByRole('article', {
      name: arReview.lead(
        formatTime('2026-11-23T09:30:00.000Z'),
        arStats.named('سلمى العتيبي', 'm-42'),
      ),
    });
    const shown = arReview.decided(
      arReview.notCredited,
      'manager-1',
      formatTime(recorded.reviewed_at),
    );
    expect(within(decided).getByRole('status')).toHaveTextContent(arReview.recorded(shown));
    // Its record beside it, with the note.
    const history = within(decided).getByRole('list', { name: arReview.history });
    expect(within(history).getByRole('listitem')).toHaveTextContent(
      `${shown} — ${arReview.noteShown} the same person`,
    );
  });

  it('shows the leads decided last with every decision on them, and adds a new one on top', async () => {
    const fetch = await openPage();
    const region = await screen.findByRole('region', { name: arReview.decidedHeading });
    const decided = within(region).getByRole('article', {
      name: arReview.lead(formatTime('2026-11-22T07:00:00.000Z'), 'm-9'),
    });
    expect(within(decided).getByText(arReview.flags.burst)).toBeVisible();
    const record = () =>
      within(within(decided).getByRole('list', { name: arReview.history }))
        .getAllByRole('listitem')
        .map((item) => item.textContent);
    const credited = arReview.decided(
      arReview.credited,
      'manager-2',
      formatTime('2026-11-22T09:00:00.000Z'),
    );
    const refused = arReview.decided(
      arReview.notCredited,
      'manager-1',
      formatTime('2026-11-22T08:00:00.000Z'),
    );
    expect(record()).toEqual([credited, `${refused} — ${arReview.noteShown} a test number`]);
    // The awaiting count is the awaiting leads' alone.
    expect(screen.getByRole('heading', { level: 2, name: arReview.heading(2) })).toBeVisible();

    fetch.mockImplementation(
      answering(() =>
        json({
          id: reviewList.decided[0]!.id,
          credited: false,
          reviewed_by: 'manager-1',
          reviewed_at: '2026-11-23T11:00:00.000Z',
          note: '',
        }),
      ),
    );
    fireEvent.click(within(decided).getByRole('button', { name: arReview.notCredited }));
    const again = arReview.decided(
      arReview.notCredited,
      'manager-1',
      formatTime('2026-11-23T11:00:00.000Z'),
    );
    expect(await within(decided).findByRole('status')).toHaveTextContent(arReview.recorded(again));
    expect(record()).toEqual([again, credited, `${refused} — ${arReview.noteShown} a test number`]);
    expect(screen.getByRole('heading', { level: 2, name: arReview.heading(2) })).toBeVisible();
  });

  it('says when a decision could not be saved, keeps the note, and saves it on the next press', async () => {
    const fetch = await openPage();
    await within(await screen.findByRole('region', { name: arReview.heading(2) })).findAllByRole(
      'article',
    );
    fetch.mockImplementation(answering(() => json({ error: arForm.errorGeneric }, 503)));
    const general = lead('2026-11-23T08:00:00.000Z', arProgram.general);
    const note = within(general).getByRole('textbox', { name: arReview.note });
    fireEvent.change(note, { target: { value: 'checked by phone' } });
    fireEvent.click(within(general).getByRole('button', { name: arReview.credited }));
    expect(await within(general).findByRole('alert')).toHaveTextContent(arReview.errorSave);
    expect(note).toHaveValue('checked by phone');
    // Past the decisions' limit a minute: said as such.
    fetch.mockImplementation(answering(() => json({ error: ar.errorTooManyRequests }, 429)));
    fireEvent.click(within(general).getByRole('button', { name: arReview.credited }));
    expect(await within(general).findByRole('alert')).toHaveTextContent(ar.errorTooManyRequests);
    expect(note).toHaveValue('checked by phone');

    fetch.mockImplementation(
      answering(() =>
        json({
          id: reviewList.leads[0]!.id,
          credited: true,
          reviewed_by: 'manager-1',
          reviewed_at: '2026-11-23T10:05:00.000Z',
          note: 'checked by phone',
        }),
      ),
    );
    fireEvent.click(within(general).getByRole('button', { name: arReview.credited }));
    await waitFor(() => expect(within(general).queryByRole('alert')).toBeNull());
    expect(within(general).getByRole('status')).toHaveTextContent(
      arReview.recorded(
        arReview.decided(arReview.credited, 'manager-1', formatTime('2026-11-23T10:05:00.000Z')),
      ),
    );
  });
  /** The page with `list` as the review list's first page; `answer` answers anything else. */
  async function openQueue(
    list: ReviewList,
    answer: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>,
  ) {
    turnOn();
    const fetch = vi.fn<typeof globalThis.fetch>((input, init) =>
      String(input) === reviewListPath
        ? init?.method === 'POST'
          ? answer(input, init)
          : json(list)
        : String(input).startsWith(reviewListPath)
          ? answer(input, init)
          : json(stats),
    );
    vi.stubGlobal('fetch', fetch);
    renderApp(path);
    await screen.findByText(arProgram.statLost);
    return fetch;
  }
  const queued = (n: number, marketer: string, flag: ReviewLead['flags'][number]['flag']) => ({
    id: `b5d2c0de-0000-4000-8000-${String(n).padStart(12, '0')}`,
    created_at: new Date(Date.parse('2026-11-23T08:00:00.000Z') + n * 60_000).toISOString(),
    marketing_id: marketer,
    name: null,
    package_key: 'premium_reco',
    phone_end: String(n % 1000).padStart(3, '0'),
    flags: [{ flag, other: null }],
  });

  it('pages on to the queue’s next leads after the last one shown, until there are none', async () => {
    const page = [1, 2].map((n) => queued(n, 'm-1', 'same_address'));
    let answer: (response: Response) => void = () => {};
    const fetch = await openQueue(
      { count: 3, leads: page, decided: [] },
      () => new Promise((resolve) => (answer = resolve)),
    );
    const region = await screen.findByRole('region', { name: arReview.heading(3) });
    fireEvent.click(await within(region).findByRole('button', { name: arReview.more }));
    expect(fetch).toHaveBeenLastCalledWith(
      `${reviewListPath}?after=${page[1]!.id}`,
      expect.objectContaining({ headers: { authorization: 'Bearer eyJ.admin.token' } }),
    );
    expect(within(region).getByRole('button', { name: arReview.more })).toBeDisabled();
    answer(Response.json({ count: 3, leads: [queued(3, 'm-2', 'fast')], decided: [] }));
    expect(
      await within(region).findByRole('article', {
        name: arReview.lead(formatTime(queued(3, 'm-2', 'fast').created_at), 'm-2'),
      }),
    ).toBeVisible();
    // All three shown: the queue's end.
    expect(within(region).queryByRole('button', { name: arReview.more })).toBeNull();
  });

  it('says when the next leads could not be loaded, and loads them on the next press', async () => {
    const fetch = await openQueue(
      { count: 2, leads: [queued(1, 'm-1', 'fast')], decided: [] },
      () => json({ error: arForm.errorGeneric }, 503),
    );
    const region = await screen.findByRole('region', { name: arReview.heading(2) });
    fireEvent.click(await within(region).findByRole('button', { name: arReview.more }));
    expect(await within(region).findByRole('alert')).toHaveTextContent(arReview.errorMore);
    fetch.mockImplementation(() =>
      json({ count: 2, leads: [queued(2, 'm-2', 'fast')], decided: [] }),
    );
    fireEvent.click(within(region).getByRole('button', { name: arReview.more }));
    expect(
      await within(region).findByRole('article', {
        name: arReview.lead(formatTime(queued(2, 'm-2', 'fast').created_at), 'm-2'),
      }),
    ).toBeVisible();
    expect(within(region).queryByRole('alert')).toBeNull();
  });

  it('decides a burst’s listed leads at once from any of them, each recorded beside it', async () => {
    const burst = [1, 2, 3].map((n) => queued(n, 'm-90', 'burst'));
    const other = queued(4, 'm-91', 'burst');
    const contested = queued(5, 'm-90', 'contested');
    let answer: (response: Response) => void = () => {};
    const fetch = await openQueue(
      { count: 5, leads: [...burst, other, contested], decided: [] },
      () => new Promise((resolve) => (answer = resolve)),
    );
    const region = await screen.findByRole('region', { name: arReview.heading(5) });
    const article = (lead: ReviewLead) =>
      within(region).getByRole('article', {
        name: arReview.lead(formatTime(lead.created_at), lead.marketing_id!),
      });
    await within(region).findAllByRole('article');
    // Offered on a burst of more than one listed lead alone.
    expect(within(article(other)).queryByRole('checkbox')).toBeNull();
    expect(within(article(contested)).queryByRole('checkbox')).toBeNull();
    const second = article(burst[1]!);
    fireEvent.click(within(second).getByRole('checkbox', { name: arReview.wholeBurst(3) }));
    fireEvent.change(within(second).getByRole('textbox', { name: arReview.note }), {
      target: { value: 'one script' },
    });
    fireEvent.click(within(second).getByRole('button', { name: arReview.notCredited }));
    expect(await within(second).findByRole('status')).toHaveTextContent(arReview.saving);
    expect(fetch).toHaveBeenLastCalledWith(
      reviewListPath,
      expect.objectContaining({
        method: 'POST',
        body: JSON.stringify({
          ids: burst.map((lead) => lead.id),
          credited: false,
          note: 'one script',
        }),
      }),
    );
    const reviews: LeadReview[] = burst.map((lead) => ({
      id: lead.id,
      credited: false,
      reviewed_by: 'manager-1',
      reviewed_at: '2026-11-23T10:00:00.000Z',
      note: 'one script',
    }));
    answer(Response.json({ reviews }));
    const shown = arReview.decided(
      arReview.notCredited,
      'manager-1',
      formatTime('2026-11-23T10:00:00.000Z'),
    );
    expect(await within(second).findByRole('status')).toHaveTextContent(
      arReview.recordedMany(3, shown),
    );
    expect(screen.getByRole('heading', { level: 2, name: arReview.heading(2) })).toBeVisible();
    for (const lead of burst) {
      const history = within(article(lead)).getByRole('list', { name: arReview.history });
      expect(within(history).getByRole('listitem')).toHaveTextContent(
        `${shown} — ${arReview.noteShown} one script`,
      );
    }
    expect(within(article(other)).queryByRole('list', { name: arReview.history })).toBeNull();
  });
});
