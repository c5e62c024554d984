import type { APIRequestContext, Page } from '@playwright/test';
import { arLinkPage } from '../src/domain/catalogue/link-page';
import { arStats } from '../src/domain/catalogue/marketer-stats';
import { ar } from '../src/domain/catalogue/shared';
import { buildPayload } from '../src/domain/registration';
import { e2eLeadsApiKey, marketerToken } from '../testing/marketer-auth';
import { axe, expect, open, putPeople, test, uniquePhone } from './support';

// Issue 17: the link page shows a marketer their own numbers, for the platform's token; issue
// 26: the clients among them, and a team leader's team.

const path = '/register/my-registration-link';
const statsSection = (page: Page) => page.getByRole('region', { name: arStats.heading });

async function signIn(page: Page, marketingId: string, token: string | null, role = 'marketing') {
  await page.addInitScript(
    ([user, stored]) => {
      localStorage.setItem('user', user);
      if (stored !== null) localStorage.setItem('token', stored);
    },
    [JSON.stringify({ role, id: marketingId }), token] as const,
  );
}

/** A sign-up through marketer's link that the provider's CRM then calls a client. */
async function client(request: APIRequestContext, marketingId: string) {
  const signUp = await request.post('/api/external-register', {
    data: buildPayload({ name: 'نورة', email: '', phone: uniquePhone() }, { marketingId }),
  });
  expect(signUp.status()).toBe(201);
  const { id } = (await signUp.json()) as { id: string };
  const changed = await request.post(`/api/leads/${id}/status`, {
    headers: { authorization: `Bearer ${e2eLeadsApiKey}` },
    data: { status: 'client' },
  });
  expect(changed.status()).toBe(200);
}

test('a marketer sees the visits and the sign-up their link brought', async ({
  page,
  request,
}, testInfo) => {
  // An id of this test's own: the e2e run shares one database.
  const marketingId = `e2e-${testInfo.project.name}-${Date.now()}`;
  const token = await marketerToken(marketingId);
  await page.goto(`/register/marketer/${marketingId}`);
  const signUp = await request.post('/api/external-register', {
    data: buildPayload({ name: 'نورة', email: '', phone: uniquePhone() }, { marketingId }),
  });
  expect(signUp.status()).toBe(201);
  // Visits are written once a second.
  await expect
    .poll(async () => {
      const response = await request.get('/api/marketer/stats?days=1', {
        headers: { authorization: `Bearer ${token}` },
      });
      return ((await response.json()) as { totals: { visits: number } }).totals.visits;
    })
    .toBe(1);

  await signIn(page, marketingId, token);
  await open(page, path);
  const section = statsSection(page);
  await expect(section).toBeVisible();
  const total = (label: string) => section.locator('dt', { hasText: label }).locator('+ dd');
  await expect(total(arStats.statVisits)).toHaveText('1');
  await expect(total(arStats.statSignUps)).toHaveText('1');
  await expect(section.getByRole('rowheader', { name: ar.headingFreeTrial })).toBeVisible();
  await page.getByRole('combobox', { name: arStats.fieldPeriod }).selectOption('7');
  await expect(total(arStats.statVisits)).toHaveText('1');
  expect(await axe(page, 'link page with its numbers', testInfo.project.name)).toEqual([]);
  await section.screenshot({ path: testInfo.outputPath('marketer-stats.png') });
});

test('a marketer sees how many of their leads were not credited, never which', async ({
  page,
  request,
}, testInfo) => {
  const marketingId = `e2e-review-${testInfo.project.name}-${Date.now()}`;
  const signUp = async () => {
    const response = await request.post('/api/external-register', {
      data: buildPayload({ name: 'نورة', email: '', phone: uniquePhone() }, { marketingId }),
    });
    expect(response.status()).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };
  const doubtful = await signUp();
  await signUp();
  // The provider decides on the programme's page, or as here through its API.
  const decided = await request.post(`/api/program/leads/${doubtful}/review`, {
    headers: { authorization: `Bearer ${await marketerToken('manager-1', 'admin')}` },
    data: { credited: false, note: 'e2e' },
  });
  expect(decided.status()).toBe(200);

  await signIn(page, marketingId, await marketerToken(marketingId));
  await open(page, path);
  const section = statsSection(page);
  const total = (label: string) => section.locator('dt', { hasText: label }).locator('+ dd');
  await expect(total(arStats.statNotCredited)).toHaveText('1');
  await expect(total(arStats.statSignUps)).toHaveText('1');
  await expect(total(arStats.statAwaitingReview)).toHaveText('0');
  await expect(section.getByText(arStats.statsReviewNote)).toBeVisible();
});

test('leads that outnumber the counted visitors are said in words, never as a rate above 100 %', async ({
  page,
  request,
}, testInfo) => {
  // Two leads sent through the API, with no visit to the link.
  const marketingId = `e2e-more-leads-${testInfo.project.name}-${Date.now()}`;
  for (const name of ['نورة', 'سارة']) {
    const signUp = await request.post('/api/external-register', {
      data: buildPayload({ name, email: '', phone: uniquePhone() }, { marketingId }),
    });
    expect(signUp.status()).toBe(201);
  }
  await signIn(page, marketingId, await marketerToken(marketingId));
  await open(page, path);
  const section = statsSection(page);
  const total = (label: string) =>
    section.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('+ dd');
  await expect(total(arStats.statSignUps)).toHaveText('2');
  await expect(total(arStats.statConversion)).toHaveText(arStats.conversionMoreLeads);
  await expect(section.getByText(arStats.conversionMoreLeadsNote)).toBeVisible();
  expect(await axe(page, 'link page, more leads than visitors', testInfo.project.name)).toEqual([]);
});

test('at 390 px the packages’ table says above it that it scrolls sideways, and scrolls to its last column', async ({
  page,
  request,
}, testInfo) => {
  const marketingId = `e2e-narrow-${testInfo.project.name}-${Date.now()}`;
  const signUp = await request.post('/api/external-register', {
    data: buildPayload(
      { name: 'نورة', email: '', phone: uniquePhone() },
      { marketingId, packageName: 'premium_portfolio' },
    ),
  });
  expect(signUp.status()).toBe(201);
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, marketingId, await marketerToken(marketingId));
  await open(page, path);
  const packages = statsSection(page).getByRole('region', { name: arStats.statsByPackage });
  await expect(packages).toBeVisible();
  const widths = await packages.evaluate((region) => ({
    scroll: region.scrollWidth,
    client: region.clientWidth,
    page: document.documentElement.scrollWidth,
  }));
  expect(widths.scroll).toBeGreaterThan(widths.client);
  expect(widths.page).toBeLessThanOrEqual(390);
  // Said in words above the region, which it describes.
  await expect(packages).toHaveAccessibleDescription(arStats.tableScrolls);
  const hint = statsSection(page).getByText(arStats.tableScrolls);
  await expect(hint).toBeVisible();
  expect((await hint.boundingBox())!.y).toBeLessThan((await packages.boundingBox())!.y);

  // Scrolled to its end (the left, in Arabic), its last columns are whole within the region (to
  // a pixel: the table's width is fractional).
  await packages.evaluate((region) => region.scrollTo({ left: -region.scrollWidth }));
  const region = (await packages.boundingBox())!;
  for (const heading of [arStats.statSignUps, arStats.statClients]) {
    const box = (await packages.getByRole('columnheader', { name: heading }).boundingBox())!;
    expect(box.x, heading).toBeGreaterThanOrEqual(region.x - 1);
    expect(box.x + box.width, heading).toBeLessThanOrEqual(region.x + region.width + 1);
  }
  expect(await axe(page, 'link page, 390 px', testInfo.project.name)).toEqual([]);
  await statsSection(page).screenshot({ path: testInfo.outputPath('link-page-390.png') });
});

test('the section is hidden when the token is refused; the link still works', async ({
  page,
  baseURL,
}) => {
  await signIn(page, '42', 'not-a-token');
  const refused = page.waitForResponse(
    (response) => response.url().includes('/api/marketer/stats') && response.status() === 401,
  );
  await open(page, path);
  await refused;
  await expect(statsSection(page)).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: arLinkPage.heading })).toHaveValue(
    `${baseURL}/register/marketer/42`,
  );
});

test('a marketer sees their clients and their rate, and no team', async ({
  page,
  request,
}, testInfo) => {
  const marketingId = `e2e-client-${testInfo.project.name}-${Date.now()}`;
  await client(request, marketingId);
  await request.post('/api/external-register', {
    data: buildPayload({ name: 'سارة', email: '', phone: uniquePhone() }, { marketingId }),
  });
  // A marketer's token carrying a team claim still shows no team.
  await signIn(page, marketingId, await marketerToken(marketingId, 'marketing', { team: ['x'] }));
  await open(page, path);
  const section = statsSection(page);
  const total = (label: string) =>
    section.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('+ dd');
  await expect(total(arStats.statClients)).toHaveText('1');
  await expect(total(arStats.statClientRate)).toHaveText(/50/);
  await expect(section.getByText(arStats.statsPeriodNote)).toBeVisible();
  await expect(section.getByRole('region', { name: arStats.teamHeading })).toHaveCount(0);
  expect(await axe(page, 'link page with clients', testInfo.project.name)).toEqual([]);
});

test('a team leader sees the members of their team by name, sortable by clients, on a 320 px phone', async ({
  page,
  request,
}, testInfo) => {
  const run = `${testInfo.project.name}-${Date.now()}`;
  const [leader, first, second] = ['leader', 'member-a', 'member-b'].map(
    (who) => `e2e-${who}-${run}`,
  ) as [string, string, string];
  await client(request, leader);
  await client(request, second);
  await client(request, second);
  await request.post('/api/external-register', {
    data: buildPayload({ name: 'ريم', email: '', phone: uniquePhone() }, { marketingId: first }),
  });
  // The platform names the first member; the directory does not know the second.
  const firstName = `سارة القحطاني ${run}`;
  await putPeople(request, [
    { marketing_id: first, name: firstName, team_leader_id: leader, email: null, active: true },
  ]);
  const token = await marketerToken(leader, 'team_leader_marketing', { team: [first, second] });
  await page.setViewportSize({ width: 320, height: 720 });
  await signIn(page, leader, token, 'team_leader_marketing');
  await open(page, path);

  const team = statsSection(page).getByRole('region', { name: arStats.teamHeading });
  await expect(team).toBeVisible();
  const table = team.getByRole('table', { name: arStats.teamHeading });
  const members = table.locator('tbody th');
  const firstNamed = arStats.named(firstName, first);
  await expect(members).toHaveText([firstNamed, second]);
  await expect(table.getByRole('rowheader', { name: firstNamed, exact: true })).toBeVisible();
  await table.getByRole('button', { name: new RegExp(arStats.teamSortByClients) }).click();
  await expect(members).toHaveText([second, firstNamed]);
  await expect(table.locator('tfoot td').last()).toHaveText('2');

  // Wider than the phone: the table scrolls sideways in its own region, which the keyboard reaches.
  const sizes = await team.evaluate((region) => ({
    scroll: region.scrollWidth,
    client: region.clientWidth,
    page: document.documentElement.scrollWidth,
  }));
  expect(sizes.scroll).toBeGreaterThan(sizes.client);
  // The page itself keeps the phone's width (a phone would widen its layout to fit it).
  expect(sizes.page).toBeLessThanOrEqual(320);
  await expect(team).toHaveAccessibleDescription(arStats.tableScrolls);
  await team.focus();
  await expect(team).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect
    .poll(() => team.evaluate((region) => Math.abs(region.scrollLeft)))
    .toBeGreaterThan(0);
  expect(await axe(page, 'link page of a team leader, 320 px', testInfo.project.name)).toEqual([]);
  await statsSection(page).screenshot({ path: testInfo.outputPath('team-leader-stats.png') });
});
