import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { arForm } from '../domain/catalogue/form';
import { arLinkPage } from '../domain/catalogue/link-page';
import { arStats } from '../domain/catalogue/marketer-stats';
import { ar } from '../domain/catalogue/shared';
import { marketerStatsMeta, type MarketerStats } from '../domain/marketer-stats';
import { notificationsPath } from '../domain/notifications';
import { packageLabels } from '../domain/packages';
import { renderApp } from './test-helpers';

const path = '/register/my-registration-link';

const stats: MarketerStats = {
  marketing_id: '42',
  days: 30,
  totals: {
    visits: 1250,
    unique_visitors: 1200,
    leads: 30,
    sign_ups: 30,
    clients: 6,
    conversion_percent: 2.5,
    client_percent: 20,
    awaiting_review: 2,
    not_credited: 1,
  },
  by_package: [
    { package_key: null, visits: 1000, unique_visitors: 960, leads: 20, sign_ups: 20, clients: 2 },
    {
      package_key: 'premium_reco',
      visits: 250,
      unique_visitors: 240,
      leads: 10,
      sign_ups: 10,
      clients: 4,
    },
  ],
  by_day: [
    { date: '2026-11-22', visits: 1000, leads: 10, sign_ups: 10, clients: 4 },
    { date: '2026-11-23', visits: 250, leads: 20, sign_ups: 20, clients: 2 },
  ],
};

// The e-mails' section asks too: a server without e-mails (no SMTP_URL) answers 404.
function stubFetch(answer: () => Promise<Response>) {
  const fetch = vi.fn<typeof globalThis.fetch>((input) =>
    String(input) === notificationsPath ? json({ error: 'not found' }, 404) : answer(),
  );
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

const json = (body: unknown, status = 200) => Promise.resolve(Response.json(body, { status }));

/** The page as the server sends it with MARKETER_AUTH_* set, for marketer 42. */
function turnOn(storageKey = 'token') {
  const meta = document.createElement('meta');
  meta.name = marketerStatsMeta;
  meta.content = storageKey;
  document.head.append(meta);
  localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 42 }));
}

const section = () => screen.queryByRole('region', { name: arStats.heading });

beforeEach(() => {
  document.head.querySelector(`meta[name="${marketerStatsMeta}"]`)?.remove();
});
afterEach(() => {
  document.head.querySelector(`meta[name="${marketerStatsMeta}"]`)?.remove();
});

describe('the numbers on the link page', () => {
  it('shows the totals, the packages and the days, sending the stored token', async () => {
    turnOn('platform_token');
    localStorage.setItem('platform_token', 'eyJ.signed.token');
    const fetch = stubFetch(() => json(stats));
    renderApp(path);

    const region = await screen.findByRole('region', { name: arStats.heading });
    await within(region).findByText(arStats.statConversion);
    expect(fetch).toHaveBeenCalledWith(
      '/api/marketer/stats?days=30',
      expect.objectContaining({ headers: { authorization: 'Bearer eyJ.signed.token' } }),
    );
    const total = (label: string) =>
      within(region).getByText(label, { selector: 'dt' }).nextElementSibling;
    expect(total(arStats.statVisits)).toHaveTextContent('1,250');
    expect(total(arStats.statSignUps)).toHaveTextContent('30');
    expect(total(arStats.statConversion)).toHaveTextContent('2.5');
    const packages = within(region).getAllByRole('table')[1]!;
    expect(within(packages).getByRole('rowheader', { name: ar.headingFreeTrial })).toBeVisible();
    expect(
      within(packages).getByRole('rowheader', { name: packageLabels.premium_reco }),
    ).toBeInTheDocument();
    // The chart's text alternative: each day, with its visits and sign-ups.
    const daysTable = within(region).getAllByRole('table')[0]!;
    expect(within(daysTable).getAllByRole('row')).toHaveLength(3);
  });

  it('shows the clients among the sign-ups, their rate, and that each counts on its sign-up day', async () => {
    turnOn();
    stubFetch(() => json(stats));
    renderApp(path);
    const region = await screen.findByRole('region', { name: arStats.heading });
    await within(region).findByText(arStats.statClientRate);
    const total = (label: string) =>
      within(region).getByText(label, { selector: 'dt' }).nextElementSibling;
    expect(total(arStats.statClients)).toHaveTextContent('6');
    expect(total(arStats.statClientRate)).toHaveTextContent('20');
    expect(within(region).getByText(arStats.statsPeriodNote)).toBeVisible();
    const packages = within(region).getAllByRole('table')[1]!;
    const premium = within(packages).getByRole('row', {
      name: new RegExp(packageLabels.premium_reco),
    });
    expect(within(premium).getAllByRole('cell').at(-1)).toHaveTextContent('4');
    // How many of their leads await review and how many were not credited, never which.
    expect(total(arStats.statAwaitingReview)).toHaveTextContent('2');
    expect(total(arStats.statNotCredited)).toHaveTextContent('1');
    expect(within(region).getByText(arStats.statsReviewNote)).toBeVisible();
    // A marketer has no team.
    expect(within(region).queryByRole('region', { name: arStats.teamHeading })).toBeNull();
    expect(within(region).queryByText(arStats.teamEmpty)).toBeNull();
  });

  it('says nothing of reviews to a marketer with no flagged or decided lead', async () => {
    turnOn();
    stubFetch(() =>
      json({ ...stats, totals: { ...stats.totals, awaiting_review: 0, not_credited: 0 } }),
    );
    renderApp(path);
    const region = await screen.findByRole('region', { name: arStats.heading });
    await within(region).findByText(arStats.statClientRate);
    expect(within(region).queryByText(arStats.statAwaitingReview)).toBeNull();
    expect(within(region).queryByText(arStats.statNotCredited)).toBeNull();
    expect(within(region).queryByText(arStats.statsReviewNote)).toBeNull();
  });

  it('says in words, not as 200 %, that the leads outnumber the visitors, and why', async () => {
    turnOn();
    stubFetch(() =>
      json({
        ...stats,
        totals: { ...stats.totals, visits: 1, unique_visitors: 1, leads: 2, sign_ups: 2 },
      }),
    );
    renderApp(path);
    const region = await screen.findByRole('region', { name: arStats.heading });
    await within(region).findByText(arStats.statConversion);
    const conversion = within(region).getByText(arStats.statConversion, {
      selector: 'dt',
    }).nextElementSibling;
    expect(conversion).toHaveTextContent(arStats.conversionMoreLeads);
    expect(conversion).not.toHaveTextContent('%');
    expect(within(region).getByText(arStats.conversionMoreLeadsNote)).toBeVisible();
  });

  it('shows no such note while the conversion is a rate', async () => {
    turnOn();
    stubFetch(() => json(stats));
    renderApp(path);
    const region = await screen.findByRole('region', { name: arStats.heading });
    await within(region).findByText(arStats.statConversion);
    expect(within(region).queryByText(arStats.conversionMoreLeadsNote)).toBeNull();
  });

  it('says above a table wider than its region that it scrolls sideways, and only then', async () => {
    // jsdom lays nothing out: a phone's widths, the table's 520 px in a region of 350.
    const scrollWidth = vi.spyOn(HTMLElement.prototype, 'scrollWidth', 'get').mockReturnValue(520);
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(350);
    turnOn();
    stubFetch(() => json(stats));
    renderApp(path);
    const packages = await screen.findByRole('region', { name: arStats.statsByPackage });
    expect(packages).toHaveAccessibleDescription(arStats.tableScrolls);
    expect(packages.previousElementSibling).toHaveTextContent(arStats.tableScrolls);
    cleanup();

    scrollWidth.mockReturnValue(350);
    renderApp(path);
    const fitting = await screen.findByRole('region', { name: arStats.statsByPackage });
    expect(fitting).not.toHaveAccessibleDescription();
    expect(screen.queryByText(arStats.tableScrolls)).toBeNull();
  });

  it('shows a team leader their members by name in a table that sorts by clients', async () => {
    turnOn();
    const member = (marketing_id: string, clients: number, name: string | null) => ({
      marketing_id,
      name,
      visits: 10,
      unique_visitors: 8,
      leads: 5,
      sign_ups: 5,
      clients,
    });
    stubFetch(() =>
      json({
        ...stats,
        team: [
          member('43', 1, 'سارة القحطاني'),
          member('44', 3, 'Noura'),
          // One the directory does not know.
          member('45', 0, null),
        ],
        team_totals: { visits: 30, unique_visitors: 24, leads: 15, sign_ups: 15, clients: 4 },
      }),
    );
    renderApp(path);
    const [sara, noura] = [arStats.named('سارة القحطاني', '43'), arStats.named('Noura', '44')];
    const team = await screen.findByRole('region', { name: arStats.teamHeading });
    expect(team).toHaveAttribute('tabindex', '0');
    const table = within(team).getByRole('table', { name: arStats.teamHeading });
    const members = () =>
      within(table)
        .getAllByRole('rowheader')
        .map((cell) => cell.textContent);
    expect(within(table).getAllByRole('columnheader')).toHaveLength(5);
    expect(members()).toEqual([sara, noura, '45', arStats.teamTotal]);
    expect(within(table).getByRole('rowheader', { name: sara })).toBeInTheDocument();
    const sort = within(table).getByRole('button', { name: new RegExp(arStats.teamSortByClients) });
    const clients = sort.closest('th')!;
    expect(clients).toHaveAttribute('aria-sort', 'none');
    fireEvent.click(sort);
    expect(members()).toEqual([noura, sara, '45', arStats.teamTotal]);
    expect(clients).toHaveAttribute('aria-sort', 'descending');
    const total = within(table).getByRole('row', { name: new RegExp(arStats.teamTotal) });
    expect(
      within(total)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['30', '24', '15', '4']);
    fireEvent.click(sort);
    expect(members()).toEqual([sara, noura, '45', arStats.teamTotal]);
  });

  it('tells a team leader without members so', async () => {
    turnOn();
    stubFetch(() =>
      json({
        ...stats,
        team: [],
        team_totals: { visits: 0, unique_visitors: 0, leads: 0, sign_ups: 0, clients: 0 },
      }),
    );
    renderApp(path);
    expect(await screen.findByText(arStats.teamEmpty)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: arStats.teamHeading })).toBeNull();
  });

  it('asks again for the period picked', async () => {
    turnOn();
    const fetch = stubFetch(() => json(stats));
    renderApp(path);
    const picker = await screen.findByRole('combobox', { name: arStats.fieldPeriod });
    expect(
      within(picker)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual([
      arStats.statsPeriods[1],
      arStats.statsPeriods[7],
      arStats.statsPeriods[30],
      arStats.statsPeriods[90],
    ]);
    fireEvent.change(picker, { target: { value: '7' } });
    await waitFor(() =>
      expect(fetch).toHaveBeenLastCalledWith('/api/marketer/stats?days=7', expect.anything()),
    );
  });

  it('says so while loading, and when nobody has visited yet', async () => {
    turnOn();
    let answer: (response: Response) => void = () => {};
    stubFetch(() => new Promise((resolve) => (answer = resolve)));
    renderApp(path);
    expect(await screen.findByText(arStats.statsLoading)).toBeInTheDocument();
    expect(section()).toHaveAttribute('aria-busy', 'true');
    const empty = {
      ...stats,
      totals: {
        visits: 0,
        unique_visitors: 0,
        leads: 0,
        sign_ups: 0,
        clients: 0,
        conversion_percent: null,
        client_percent: null,
        awaiting_review: 0,
        not_credited: 0,
      },
      by_package: [],
    };
    answer(Response.json(empty));
    expect(await screen.findByText(arStats.statsEmpty)).toBeInTheDocument();
  });

  it('says when the numbers could not be loaded, and tries again', async () => {
    turnOn();
    const fetch = stubFetch(() => json({ error: arForm.errorGeneric }, 503));
    renderApp(path);
    expect(await screen.findByRole('alert')).toHaveTextContent(arStats.errorStats);
    fetch.mockImplementation(() => json(stats));
    fireEvent.click(screen.getByRole('button', { name: arStats.buttonRetry }));
    expect(await screen.findByText(arStats.statConversion)).toBeInTheDocument();
  });

  it.each([401, 403, 404])(
    'is hidden when the server answers %i; the link stays',
    async (status) => {
      turnOn();
      const fetch = stubFetch(() => json({ error: arStats.errorSignIn }, status));
      renderApp(path);
      await waitFor(() => expect(fetch).toHaveBeenCalled());
      await waitFor(() => expect(section()).not.toBeInTheDocument());
      expect(screen.getByRole('heading', { name: arLinkPage.heading })).toBeInTheDocument();
    },
  );

  it('is not there, and nothing is asked, when the server has the numbers off', async () => {
    // First a page with the numbers on, which loads the link page's and the section's chunks:
    // from then on render() draws the page whole and runs its effects, so a section, and its
    // request, would be there as soon as render() returns.
    turnOn();
    stubFetch(() => json(stats));
    renderApp(path);
    await screen.findByRole('region', { name: arStats.heading });
    cleanup();
    document.head.querySelector(`meta[name="${marketerStatsMeta}"]`)?.remove();

    const fetch = stubFetch(() => json(stats));
    renderApp(path);
    expect(screen.getByRole('heading', { name: arLinkPage.heading })).toBeInTheDocument();
    expect(section()).not.toBeInTheDocument();
    expect(fetch).not.toHaveBeenCalled();
  });
});
