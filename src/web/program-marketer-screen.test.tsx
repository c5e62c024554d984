import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { arLeadStatus } from '../domain/catalogue/lead-status';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram, arReview } from '../domain/catalogue/program';
import { arProgramMarketer } from '../domain/catalogue/program-marketer';
import { ar } from '../domain/catalogue/shared';
import { marketerStatsMeta } from '../domain/marketer-stats';
import { packageLabels } from '../domain/packages';
import type { ProgramMarketerStats } from '../domain/program-marketer';
import type { ProgramNumbers, ProgramTotals } from '../domain/program-stats';
import { formatRate } from '../domain/stats-format';
import { renderApp } from './test-helpers';

const path = '/register/program/marketers/m-42';

const numbers = (leads: number, clients: number): ProgramNumbers => ({
  visits: leads * 10,
  unique_visitors: leads * 8,
  leads,
  clients,
  conversion_percent: 12.5,
  client_percent: Math.round((clients / leads) * 1000) / 10,
  flagged: 1,
  not_credited: 1,
});
const totals = (leads: number, clients: number): ProgramTotals => ({
  ...numbers(leads, clients),
  contacted: 4,
  qualified: 3,
  lost: 2,
});

const stats: ProgramMarketerStats = {
  days: 7,
  from: '2026-11-17',
  to: '2026-11-23',
  marketing_id: 'm-42',
  known: true,
  name: 'سلمى العتيبي',
  team_leader: { marketing_id: 'lead-1', name: 'نورة القحطاني' },
  totals: totals(20, 5),
  previous: { from: '2026-11-10', to: '2026-11-16', totals: totals(10, 5) },
  by_day: ['17', '18', '19', '20', '21', '22', '23'].map((day, index) => ({
    date: `2026-11-${day}`,
    visits: 10 * index,
    leads: index,
    clients: 0,
  })),
  outcomes: { new: 6, contacted: 4, qualified: 3, client: 5, lost: 2 },
  packages: [{ package_key: 'premium_reco', ...numbers(20, 5) }],
  campaigns: [{ utm_source: 'whatsapp', utm_campaign: 'ramadan', other: false, ...numbers(20, 5) }],
  awaiting_review: {
    count: 120,
    leads: [
      {
        id: 'b5d2c0de-0000-4000-8000-000000000001',
        created_at: '2026-11-23T08:00:00.000Z',
        marketing_id: 'm-42',
        name: 'سلمى العتيبي',
        package_key: 'premium_reco',
        phone_end: '101',
        flags: [{ flag: 'fast', other: null }],
      },
    ],
  },
  not_credited: { count: 0, leads: [] },
};

const json = (body: unknown, status = 200) => Promise.resolve(Response.json(body, { status }));

function open(answer: () => Promise<Response>, address = path) {
  const meta = document.createElement('meta');
  meta.name = marketerStatsMeta;
  meta.content = 'platform_token';
  document.head.append(meta);
  localStorage.setItem('platform_token', JSON.stringify('eyJ.admin.token'));
  const fetch = vi.fn<typeof globalThis.fetch>(answer);
  vi.stubGlobal('fetch', fetch);
  window.history.replaceState(null, '', address);
  renderApp(address);
  return fetch;
}

const removeMeta = () => document.head.querySelector(`meta[name="${marketerStatsMeta}"]`)?.remove();
beforeEach(removeMeta);
afterEach(removeMeta);
afterEach(() => window.history.replaceState(null, '', '/'));

const total = (label: string) =>
  screen.getAllByText(label, { selector: 'dt' })[0]!.nextElementSibling?.textContent;

describe("a marketer's page on the programme", () => {
  it('shows who they are, their team, their totals, outcomes, packages, campaigns and leads awaiting review, masked', async () => {
    const fetch = open(() => json(stats));
    await screen.findByText(arProgram.statLost);
    expect(fetch).toHaveBeenCalledWith(
      '/api/program/marketers/m-42/stats?days=30',
      expect.objectContaining({ headers: { authorization: 'Bearer eyJ.admin.token' } }),
    );
    expect(document.title).toBe(ar.titleProgramMarketer(ar.brandDefault));
    expect(
      screen.getByRole('heading', {
        level: 1,
        name: arProgramMarketer.heading(arStats.named('سلمى العتيبي', 'm-42')),
      }),
    ).toBeVisible();
    expect(total(arProgramMarketer.team)).toBe(arStats.named('نورة القحطاني', 'lead-1'));
    expect(total(arStats.statSignUps)).toBe('20');
    // 20 leads against the previous period's 10.
    expect(screen.getAllByText(arProgram.changeUp(formatRate(100))).length).toBeGreaterThan(0);
    const outcomes = screen.getByRole('region', { name: arProgramMarketer.outcomes });
    for (const [status, count] of Object.entries(stats.outcomes)) {
      const label = arLeadStatus[status as keyof typeof arLeadStatus];
      expect(within(outcomes).getByText(label).nextElementSibling?.textContent).toBe(String(count));
    }
    expect(
      within(screen.getByRole('table', { name: arStats.statsByPackage })).getByRole('rowheader')
        .textContent,
    ).toBe(packageLabels.premium_reco);
    expect(
      within(screen.getByRole('table', { name: arProgram.byCampaign })).getByRole('rowheader')
        .textContent,
    ).toBe('whatsapp');
    const awaiting = screen.getByRole('region', { name: arProgramMarketer.awaiting(120) });
    expect(within(awaiting).getByText(arReview.phoneEnding('101'))).toBeInTheDocument();
    expect(within(awaiting).getByText(arReview.flags.fast)).toBeVisible();
    expect(within(awaiting).getByText(arProgramMarketer.firstShown(1))).toBeVisible();
    // Decided on the programme's review list, not here.
    expect(within(awaiting).queryByRole('button')).toBeNull();
    const refused = screen.getByRole('region', { name: arProgramMarketer.notCredited(0) });
    expect(within(refused).getByText(arProgramMarketer.notCreditedNone)).toBeVisible();
  });

  it('keeps the period in the address and in the way back to the programme', async () => {
    const fetch = open(() => json(stats), `${path}?from=2026-11-01&to=2026-11-15`);
    await screen.findByText(arProgram.statLost);
    expect(fetch).toHaveBeenCalledWith(
      '/api/program/marketers/m-42/stats?from=2026-11-01&to=2026-11-15',
      expect.anything(),
    );
    const back = () => screen.getByRole('link', { name: arProgramMarketer.back });
    expect(back().getAttribute('href')).toBe('/register/program?from=2026-11-01&to=2026-11-15');
    fireEvent.change(screen.getByLabelText(arStats.fieldPeriod), { target: { value: '7' } });
    await screen.findByText(arProgram.statLost);
    expect(window.location.search).toBe('?days=7');
    expect(back().getAttribute('href')).toBe('/register/program?days=7');
  });

  it('says the directory does not know an id, shown alone, with its zeros', async () => {
    const zeros = totals(0, 0);
    open(() =>
      json({
        ...stats,
        known: false,
        name: null,
        team_leader: null,
        totals: { ...zeros, conversion_percent: null, client_percent: null },
        awaiting_review: { count: 0, leads: [] },
      }),
    );
    expect(await screen.findByText(arProgramMarketer.unknown)).toBeVisible();
    expect(
      screen.getByRole('heading', { level: 1, name: arProgramMarketer.heading('m-42') }),
    ).toBeVisible();
    expect(screen.queryByText(arProgramMarketer.team)).toBeNull();
    expect(screen.getByText(arProgramMarketer.awaitingNone)).toBeVisible();
  });

  it('refuses a role outside the programme as its page does', async () => {
    open(() => json({ error: ar.errorNotAuthorized }, 403));
    expect(await screen.findByRole('alert')).toHaveTextContent(ar.errorNotAuthorized);
  });
});
