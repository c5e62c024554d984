import { readFile } from 'node:fs/promises';
import type { APIRequestContext, Page } from '@playwright/test';
import { arStats } from '../src/domain/catalogue/marketer-stats';
import { arProgram, arReview } from '../src/domain/catalogue/program';
import { ar } from '../src/domain/catalogue/shared';
import type { MarketerStats } from '../src/domain/marketer-stats';
import type { ProgramStats } from '../src/domain/program-stats';
import { buildPayload } from '../src/domain/registration';
import { e2eLeadsApiKey, marketerToken } from '../testing/marketer-auth';
import { axe, expect, flagLead, open, putPeople, test, uniquePhone } from './support';

// Issue 36: the provider's page of the referral programme, for a token of PROGRAM_ROLES (the
// e2e server leaves it unset: admin).

const path = '/register/program';
const statsUrl = '/api/program/stats?days=30';

async function signIn(page: Page, token: string) {
  await page.addInitScript((stored) => localStorage.setItem('token', stored), token);
}

/** A sign-up through a marketer's link, which the provider's CRM then calls a client or not. */
async function signUp(request: APIRequestContext, marketingId: string, client: boolean) {
  const stored = await request.post('/api/external-register', {
    data: buildPayload({ name: 'نورة', email: '', phone: uniquePhone() }, { marketingId }),
  });
  expect(stored.status()).toBe(201);
  if (!client) return;
  const { id } = (await stored.json()) as { id: string };
  const changed = await request.post(`/api/leads/${id}/status`, {
    headers: { authorization: `Bearer ${e2eLeadsApiKey}` },
    data: { status: 'client' },
  });
  expect(changed.status()).toBe(200);
}

/**
 * Two marketers of this test's own (the e2e run shares one database): the first with a visit,
 * four leads and three of them clients, the second with one lead.
 */
async function twoMarketers(page: Page, request: APIRequestContext, project: string) {
  const run = `${project}-${Date.now()}`;
  const [first, second] = [`e2e-top-${run}`, `e2e-one-${run}`] as const;
  const admin = await marketerToken(`e2e-admin-${run}`, 'admin');
  await page.goto(`/register/marketer/${first}`);
  for (const client of [true, true, true, false]) await signUp(request, first, client);
  await signUp(request, second, false);
  // Visits are written once a second.
  await expect
    .poll(async () => {
      const response = await request.get(statsUrl, {
        headers: { authorization: `Bearer ${admin}` },
      });
      const stats = (await response.json()) as ProgramStats;
      return stats.marketers.find((row) => row.marketing_id === first)?.visits;
    })
    .toBe(1);
  return { first, second, admin };
}

const marketersTable = (page: Page) => page.getByRole('table', { name: arProgram.byMarketer });

/** A marketer's row: its id, then its numbers as shown. */
function marketerRow(page: Page, marketingId: string) {
  return marketersTable(page)
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: marketingId, exact: true }) });
}

test('an admin sees the totals, the days and the marketers the API stored, and sorts by clients', async ({
  page,
  request,
}, testInfo) => {
  const { first, second, admin } = await twoMarketers(page, request, testInfo.project.name);
  await signIn(page, admin);
  const answered = page.waitForResponse((response) => response.url().endsWith(statsUrl));
  await open(page, path);
  const stats = (await (await answered).json()) as ProgramStats;

  await expect(page.getByRole('heading', { level: 1, name: arProgram.heading })).toBeVisible();
  // The totals are the answer's (other tests add sign-ups to the same database meanwhile).
  const total = (label: string) =>
    page.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('+ dd');
  await expect(total(arStats.statSignUps)).toHaveText(stats.totals.leads.toLocaleString('en'));
  await expect(total(arStats.statClients)).toHaveText(stats.totals.clients.toLocaleString('en'));
  await expect(total(arStats.statVisits)).toHaveText(stats.totals.visits.toLocaleString('en'));
  expect(stats.totals.leads).toBeGreaterThanOrEqual(5);

  // Thirty days, today's leads (ours among them) in the chart's table.
  const chart = page.getByRole('figure');
  await expect(chart.locator('figcaption')).toContainText(arStats.statsChart);
  await expect(chart.locator('.chart-axis span')).toHaveCount(3);
  await expect(chart.locator('svg rect')).toHaveCount(30 * 3);
  const days = chart.getByRole('table', { name: arStats.statsChart });
  await expect(days.locator('tbody tr')).toHaveCount(30);
  await expect(days.locator('tbody tr').last().locator('td').nth(1)).toHaveText(
    String(stats.by_day.at(-1)?.leads),
  );

  // Visits, unique visitors, leads, clients, conversion (four leads to one counted visitor: said
  // in words, never 400 %), client rate, flagged (the fourth lead from one address in a day:
  // same_address), not credited.
  await expect(marketerRow(page, first).locator('td')).toHaveText([
    '1',
    '1',
    '4',
    '3',
    arStats.conversionMoreLeads,
    /75/,
    '1',
    '0',
  ]);
  await expect(page.getByText(arStats.conversionMoreLeadsNote)).toBeVisible();
  const showAll = page.getByRole('button', { name: arProgram.showAll(stats.marketers.length) });
  if (await showAll.isVisible()) await showAll.click();
  await expect(marketerRow(page, second).locator('td').nth(2)).toHaveText('1');

  const clients = marketersTable(page).getByRole('columnheader', {
    name: arStats.statClients,
    exact: true,
  });
  await expect(clients).toHaveAttribute('aria-sort', 'none');
  await clients.getByRole('button').click();
  await expect(clients).toHaveAttribute('aria-sort', 'descending');
  const clientCounts = (
    await marketersTable(page).locator('tbody tr td:nth-of-type(4)').allTextContents()
  ).map(Number);
  expect(clientCounts).toEqual([...clientCounts].sort((a, b) => b - a));
  const ids = await marketersTable(page).locator('tbody th').allTextContents();
  expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second));
  expect(ids.indexOf(first)).toBeLessThanOrEqual(1);

  expect(await axe(page, 'programme page', testInfo.project.name)).toEqual([]);
  await page.screenshot({ path: testInfo.outputPath('program.png'), fullPage: true });
});

test('the period downloads as a CSV file that opens in Excel', async ({
  page,
  request,
}, testInfo) => {
  const { first, admin } = await twoMarketers(page, request, testInfo.project.name);
  await signIn(page, admin);
  const answered = page.waitForResponse((response) => response.url().endsWith(statsUrl));
  await open(page, path);
  const stats = (await (await answered).json()) as ProgramStats;
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: arProgram.download }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`program_${stats.from}_${stats.to}.csv`);
  const bytes = await readFile(await download.path());
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString('utf8').split('\r\n');
  expect(lines[0]).toBe(
    'table,marketing_id,name,team_leader_id,team_name,utm_source,utm_campaign,package_key,visits,unique_visitors,leads,clients,conversion_percent,client_percent,flagged,not_credited,notes,from,to',
  );
  // The fourth lead from one address in a day is flagged (same_address); none is decided. Four
  // leads to one counted visitor: no rate, and the notes say why.
  expect(lines).toContain(
    `marketers,${first},,,,,,,1,1,4,3,,75.0,1,0,${arStats.conversionMoreLeadsNote},${stats.from},${stats.to}`,
  );
  expect(lines.at(-1)).toBe('');
});

test('a flagged lead is on the review list, and a decision on it takes its credit', async ({
  page,
  request,
}, testInfo) => {
  const run = `${testInfo.project.name}-${Date.now()}`;
  const [first, second] = [`e2e-first-${run}`, `e2e-second-${run}`] as const;
  const admin = await marketerToken(`e2e-admin-${run}`, 'admin');
  const phone = uniquePhone();
  const signUp = async (marketingId: string, packageName?: string) => {
    const stored = await request.post('/api/external-register', {
      data: buildPayload(
        { name: 'نورة', email: 'noura@example.com', phone },
        { marketingId, packageName },
      ),
    });
    expect(stored.status()).toBe(201);
    return ((await stored.json()) as { id: string }).id;
  };
  // The same phone through two marketers' links, for two packages: two leads, the second
  // flagged contested by the checks themselves; a second flag written by hand.
  await signUp(first);
  const doubtful = await signUp(second, 'premium_reco');
  flagLead(doubtful, 'burst');

  await signIn(page, admin);
  await open(page, path);
  // Its heading counts every lead awaiting review: other tests flag theirs in the same database.
  const list = page.getByRole('region', {
    name: new RegExp(`^${arReview.heading(0).replace(' (0)', '')} \\(\\d+\\)$`),
  });
  const lead = list.getByRole('article').filter({ hasText: second });
  await expect(lead).toBeVisible();
  await expect(lead.getByRole('listitem')).toHaveText([
    `${arReview.flags.contested}، ${arReview.contestedBy} ${first}`,
    arReview.flags.burst,
  ]);
  await expect(lead).toContainText(`•••••••••${phone.slice(-3)}`);
  await expect(lead).not.toContainText('نورة');
  await expect(lead).not.toContainText('noura@example.com');
  expect(await axe(page, 'programme page, review list', testInfo.project.name)).toEqual([]);

  const heading = await list.getByRole('heading', { level: 2 }).textContent();
  const count = Number(/\((\d+)\)/.exec(heading ?? '')?.[1]);
  await lead.getByRole('textbox', { name: arReview.note }).fill('the same phone as a lead before');
  await lead.getByRole('button', { name: arReview.notCredited, exact: true }).click();
  await expect(lead.getByRole('status')).toContainText(arReview.notCredited);
  await expect(lead.getByRole('status')).toContainText(`e2e-admin-${run}`);
  await expect(list.getByRole('heading', { level: 2 })).toHaveText(arReview.heading(count - 1));

  // The second marketer's lead is counted as not credited, and no longer as a lead.
  const own = await request.get('/api/marketer/stats?days=1', {
    headers: { authorization: `Bearer ${await marketerToken(second)}` },
  });
  expect(((await own.json()) as MarketerStats).totals).toMatchObject({
    leads: 0,
    not_credited: 1,
    awaiting_review: 0,
  });

  // At 320 px the list fits the page.
  await page.setViewportSize({ width: 320, height: 800 });
  await expect(lead).toBeVisible();
  const sizes = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }));
  expect(sizes.page).toBeLessThanOrEqual(sizes.viewport);
  await lead.screenshot({ path: testInfo.outputPath('review-list.png') });

  // At the next load it is among the leads decided last, its record beside it.
  await page.setViewportSize({ width: 1280, height: 800 });
  await open(page, path);
  const decided = page
    .getByRole('region', { name: arReview.decidedHeading })
    .getByRole('article')
    .filter({ hasText: second });
  await expect(list.getByRole('article').filter({ hasText: second })).toHaveCount(0);
  const history = decided.getByRole('list', { name: arReview.history });
  await expect(history.getByRole('listitem')).toHaveCount(1);
  await expect(history).toContainText(arReview.notCredited);
  await expect(history).toContainText(`e2e-admin-${run}`);
  await expect(history).toContainText('the same phone as a lead before');
  expect(await axe(page, 'programme page, decided leads', testInfo.project.name)).toEqual([]);
});

test('a marketer’s token is not authorised; without a token the page asks to sign in', async ({
  page,
}) => {
  await signIn(page, await marketerToken('42', 'marketing'));
  await open(page, path);
  await expect(page.getByRole('alert')).toHaveText(ar.errorNotAuthorized);
  await expect(page.getByRole('table')).toHaveCount(0);

  // After the token's: the page opens without one.
  await page.addInitScript(() => localStorage.removeItem('token'));
  await open(page, path);
  await expect(page.getByRole('alert')).toHaveText(arProgram.errorSignIn);
});

test('from 320 to 480 px nothing overflows the page; the tables scroll in their regions', async ({
  page,
  request,
}, testInfo) => {
  const { admin } = await twoMarketers(page, request, testInfo.project.name);
  await signIn(page, admin);
  for (const width of [320, 360, 400, 440, 480]) {
    await page.setViewportSize({ width, height: 800 });
    await open(page, path);
    await expect(marketersTable(page)).toBeVisible();
    const sizes = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      viewport: document.documentElement.clientWidth,
    }));
    expect(sizes.page, `${width} px`).toBeLessThanOrEqual(sizes.viewport);
  }
  await page.setViewportSize({ width: 320, height: 800 });
  const region = page.getByRole('region', { name: arProgram.byMarketer });
  const widths = await region.evaluate((element) => ({
    scroll: element.scrollWidth,
    client: element.clientWidth,
  }));
  expect(widths.scroll).toBeGreaterThan(widths.client);
  await region.focus();
  await expect(region).toBeFocused();
  expect(await axe(page, 'programme page, 320 px', testInfo.project.name)).toEqual([]);
});

test('at 1280 px the page uses the width: the totals in a row, the chart and every table across, none scrolling sideways', async ({
  page,
  request,
}, testInfo) => {
  const { first, admin } = await twoMarketers(page, request, testInfo.project.name);
  // The longest texts a row may hold, each one word: a marketer id of 64 characters and a
  // campaign of 100 (the most a link keeps).
  const stored = await request.post('/api/external-register', {
    data: buildPayload(
      { name: 'نورة', email: '', phone: uniquePhone() },
      { marketingId: `${first}-`.padEnd(64, 'x') },
      { utm_source: 'newsletter', utm_campaign: `ramadan-${'c'.repeat(92)}` },
    ),
  });
  expect(stored.status()).toBe(201);
  await signIn(page, admin);
  await page.setViewportSize({ width: 1280, height: 800 });
  await open(page, path);
  await expect(marketersTable(page)).toBeVisible();
  // Every row, in every table.
  const showAll = page.getByRole('button', {
    name: new RegExp(`^${arProgram.showAll(0).replace('(0)', '\\(\\d+\\)')}$`),
  });
  while ((await showAll.count()) > 0) await showAll.first().click();

  // The card's content box: what the tables and the chart span.
  const content = await page.locator('.card.program').evaluate((card) => {
    const style = getComputedStyle(card);
    return card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  });
  expect(content).toBeGreaterThanOrEqual(1100);

  // Eleven totals, side by side in one row.
  const totals = page.locator('dl.totals dt');
  await expect(totals).toHaveCount(11);
  const tops = await totals.evaluateAll((terms) =>
    terms.map((term) => Math.round(term.parentElement!.getBoundingClientRect().top)),
  );
  expect(new Set(tops).size).toBe(1);

  // The provider's name and logo start where the card does (at the right, in Arabic).
  const [banner, card] = await Promise.all([
    page.getByRole('banner').locator('.brand-link').boundingBox(),
    page.locator('.card.program').boundingBox(),
  ]);
  expect(Math.abs(banner!.x + banner!.width - (card!.x + card!.width))).toBeLessThanOrEqual(1);

  // The chart across the card.
  const chart = await page.getByRole('figure').locator('svg').boundingBox();
  expect(chart!.width).toBeGreaterThanOrEqual(content - 1);

  const tableWidths: number[] = [];
  for (const caption of [arProgram.byMarketer, arProgram.byCampaign, arStats.statsByPackage]) {
    const region = page.getByRole('region', { name: caption });
    const table = await region.getByRole('table', { name: caption }).boundingBox();
    tableWidths.push(Math.round(table!.width));
    expect(table!.width, caption).toBeGreaterThanOrEqual(800);
    expect(table!.width, caption).toBeGreaterThanOrEqual(content - 1);
    const widths = await region.evaluate((element) => ({
      scroll: element.scrollWidth,
      client: element.clientWidth,
    }));
    expect(widths.scroll, caption).toBeLessThanOrEqual(widths.client);
    // Nothing to scroll, so no line saying so.
    await expect(region, caption).not.toHaveAccessibleDescription(arStats.tableScrolls);
  }
  await expect(page.getByText(arStats.tableScrolls)).toHaveCount(0);
  const sizes = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }));
  expect(sizes.page).toBeLessThanOrEqual(sizes.viewport);
  console.log(
    `layout [${testInfo.project.name}] 1280 px: card's content ${content} px, tables ` +
      `${tableWidths.join(', ')} px, chart ${Math.round(chart!.width)} px, totals in one row`,
  );
  expect(await axe(page, 'programme page, 1280 px', testInfo.project.name)).toEqual([]);
  await page.screenshot({ path: testInfo.outputPath('program-1280.png'), fullPage: true });
});

test('at 390 px the phone layout stays, and a table wider than the phone says so above its named region', async ({
  page,
  request,
}, testInfo) => {
  const { admin } = await twoMarketers(page, request, testInfo.project.name);
  await signIn(page, admin);
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, path);
  await expect(marketersTable(page)).toBeVisible();

  // The totals wrap onto rows of their own, as on any phone.
  const tops = await page
    .locator('dl.totals dt')
    .evaluateAll((terms) =>
      terms.map((term) => Math.round(term.parentElement!.getBoundingClientRect().top)),
    );
  expect(new Set(tops).size).toBeGreaterThan(1);

  for (const caption of [arProgram.byMarketer, arProgram.byCampaign, arStats.statsByPackage]) {
    const region = page.getByRole('region', { name: caption });
    const widths = await region.evaluate((element) => ({
      scroll: element.scrollWidth,
      client: element.clientWidth,
    }));
    expect(widths.scroll, caption).toBeGreaterThan(widths.client);
    // The line above the region says it scrolls, and is its description.
    await expect(region, caption).toHaveAccessibleDescription(arStats.tableScrolls);
    const hint = page.locator(`#${await region.getAttribute('aria-describedby')}`);
    await expect(hint).toBeVisible();
    const [above, below] = [await hint.boundingBox(), await region.boundingBox()];
    expect(above!.y + above!.height, caption).toBeLessThanOrEqual(below!.y);
  }

  // The keyboard reaches the marketers' region and scrolls it.
  const region = page.getByRole('region', { name: arProgram.byMarketer });
  await region.focus();
  await expect(region).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect
    .poll(() => region.evaluate((element) => Math.abs(element.scrollLeft)))
    .toBeGreaterThan(0);
  expect(await axe(page, 'programme page, 390 px', testInfo.project.name)).toEqual([]);
  await page.screenshot({ path: testInfo.outputPath('program-390.png'), fullPage: true });
});

test('at 390 and 1280 px the marketers are named, found however their names are typed, and grouped by team', async ({
  page,
  request,
}, testInfo) => {
  const { first, second, admin } = await twoMarketers(page, request, testInfo.project.name);
  // The e2e run shares one database: names of this test's own, and a leader of its own.
  const run = String(Date.now());
  const leader = `e2e-lead-${run}`;
  const names = {
    first: `أسماء الزهراني ${run}`,
    second: `فاطمة ${run}`,
    leader: `نورة القحطاني ${run}`,
  };
  const person = (marketing_id: string, name: string, team_leader_id: string | null) => ({
    marketing_id,
    name,
    team_leader_id,
    email: null,
    active: true,
  });
  await putPeople(request, [
    person(first, names.first, leader),
    person(second, names.second, leader),
    person(leader, names.leader, null),
  ]);
  // A lead through a general link: apart from every team.
  const general = await request.post('/api/external-register', {
    data: buildPayload({ name: 'نورة', email: '', phone: uniquePhone() }, {}),
  });
  expect(general.status()).toBe(201);
  await signIn(page, admin);
  const firstNamed = arStats.named(names.first, first);
  const secondNamed = arStats.named(names.second, second);

  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    await open(page, path);
    await expect(marketersTable(page)).toBeVisible();
    // Each by name with the id beside it.
    await expect(marketerRow(page, firstNamed)).toHaveCount(1);

    // Found with a bare alef for أ, and a haa for ة; by id too.
    const search = page.getByRole('searchbox', { name: arProgram.search });
    const found = marketersTable(page).getByRole('rowheader');
    await search.fill(`اسماء الزهراني ${run}`);
    await expect(found).toHaveText([firstNamed]);
    await search.fill(`فاطمه ${run}`);
    await expect(found).toHaveText([secondNamed]);
    await search.fill(second);
    await expect(found).toHaveText([secondNamed]);
    await expect(page.locator('#marketer-search-found')).toHaveText(arProgram.searchFound(1));
    await search.fill('');

    // The team by its leader's name, its numbers the two members' (five leads, three clients),
    // its members under it once opened.
    const teams = page.getByRole('table', { name: arProgram.teams });
    const team = teams.getByRole('button', {
      name: `${arStats.named(names.leader, leader)} (${arProgram.teamMembers(2)})`,
    });
    await expect(team).toHaveAttribute('aria-expanded', 'false');
    const teamRow = team.locator('xpath=ancestor::tr');
    await expect(teamRow.getByRole('cell').nth(2)).toHaveText('5');
    await expect(teamRow.getByRole('cell').nth(3)).toHaveText('3');
    const member = teams.getByRole('rowheader', { name: firstNamed, exact: true });
    await expect(member).toBeHidden();
    await team.click();
    await expect(team).toHaveAttribute('aria-expanded', 'true');
    await expect(member).toBeVisible();
    await expect(teams.getByRole('rowheader', { name: secondNamed, exact: true })).toBeVisible();
    // The general links and the marketers in no team, apart.
    await expect(
      teams.getByRole('button', { name: new RegExp(`^${arProgram.noTeam}`) }),
    ).toBeVisible();

    const region = page.getByRole('region', { name: arProgram.teams });
    const widths = await region.evaluate((element) => ({
      scroll: element.scrollWidth,
      client: element.clientWidth,
    }));
    if (width === 1280) expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    else await expect(region).toHaveAccessibleDescription(arStats.tableScrolls);
    expect(
      await axe(page, `programme page with names and teams, ${width} px`, testInfo.project.name),
    ).toEqual([]);
    await page.screenshot({
      path: testInfo.outputPath(`program-names-${width}.png`),
      fullPage: true,
    });
  }
});

test('a range in the address shows that range, each total beside the previous period’s, at 1024 px, 1280 px and on a phone', async ({
  page,
  request,
}, testInfo) => {
  const { admin } = await twoMarketers(page, request, testInfo.project.name);
  await signIn(page, admin);
  // The last seven days as a range, as a manager would send it to a colleague.
  const day = (daysBefore: number) =>
    new Date(Date.now() - daysBefore * 86_400_000).toISOString().slice(0, 10);
  const [from, to] = [day(6), day(0)];
  const range = `${path}?from=${from}&to=${to}`;
  const answered = page.waitForResponse((response) =>
    response.url().endsWith(`/api/program/stats?from=${from}&to=${to}`),
  );
  await open(page, range);
  const stats = (await (await answered).json()) as ProgramStats;
  expect(stats).toMatchObject({ days: 7, from, to, previous: { from: day(13), to: day(7) } });

  await expect(page.getByRole('combobox', { name: arStats.fieldPeriod })).toHaveValue('range');
  await expect(page.getByLabel(arProgram.rangeFrom)).toHaveValue(from);
  await expect(page.getByLabel(arProgram.rangeTo)).toHaveValue(to);
  await expect(page.getByRole('figure').locator('svg rect')).toHaveCount(7 * 3);

  // Each total with the previous period's figure under it, and the change said in words.
  const leads = page.locator('dl.totals div', {
    has: page.locator('dt', { hasText: new RegExp(`^${arStats.statSignUps}$`) }),
  });
  const before = stats.previous.totals.leads;
  await expect(leads.locator('dd.change')).toContainText(
    arProgram.previous(before.toLocaleString('en')),
  );
  if (before === 0) {
    await expect(leads.locator('dd.change [aria-hidden="true"]')).toHaveText(arProgram.changeNew);
    await expect(leads.locator('dd.change')).toContainText(arProgram.changeNewSaid);
  } else {
    await expect(leads.locator('dd.change [aria-hidden="true"]')).toHaveText(
      new RegExp(`^[↑↓]|^${arProgram.changeNone}$`),
    );
  }
  await expect(page.locator('dl.totals dd.change')).toHaveCount(11);

  for (const viewport of [
    { width: 1024, height: 800 },
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await expect(page.locator('dl.totals dd.change').first()).toBeVisible();
    // Every total's comparison inside its box, and nothing wider than the page.
    const overflowing = await page
      .locator('dl.totals > div')
      .evaluateAll((totals) =>
        totals
          .filter((total) => total.scrollWidth > total.clientWidth)
          .map((total) => total.querySelector('dt')?.textContent),
      );
    expect(overflowing, `${viewport.width} px`).toEqual([]);
    const sizes = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      viewport: document.documentElement.clientWidth,
    }));
    expect(sizes.page, `${viewport.width} px`).toBeLessThanOrEqual(sizes.viewport);
    const tops = await page
      .locator('dl.totals dt')
      .evaluateAll((terms) =>
        terms.map((term) => Math.round(term.parentElement!.getBoundingClientRect().top)),
      );
    // From 1024 px the totals stay in one row; a phone's wrap.
    expect(new Set(tops).size === 1, `${viewport.width} px`).toBe(viewport.width >= 1024);
    expect(
      await axe(page, `programme page, a range, ${viewport.width} px`, testInfo.project.name),
    ).toEqual([]);
    await page.screenshot({
      path: testInfo.outputPath(`program-range-${viewport.width}.png`),
      fullPage: true,
    });
    await page.locator('dl.totals').screenshot({
      path: testInfo.outputPath(`program-range-totals-${viewport.width}.png`),
    });
  }

  // Another period chosen is written into the address: opened again, it shows that one.
  await page.getByRole('combobox', { name: arStats.fieldPeriod }).selectOption('7');
  await expect(page).toHaveURL(new RegExp(`${path}\\?days=7$`));
  await expect(page.getByLabel(arProgram.rangeFrom)).toHaveCount(0);
  const seven = page.waitForResponse((response) =>
    response.url().endsWith('/api/program/stats?days=7'),
  );
  await page.reload();
  expect((await seven).status()).toBe(200);
  await expect(page.getByRole('combobox', { name: arStats.fieldPeriod })).toHaveValue('7');
});
