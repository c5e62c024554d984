import { chromium, test as base, expect } from '@playwright/test';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { arForm } from '../src/domain/catalogue/form';
import { arLinkPage } from '../src/domain/catalogue/link-page';
import { arStats } from '../src/domain/catalogue/marketer-stats';
import { arProgram } from '../src/domain/catalogue/program';
import { ar } from '../src/domain/catalogue/shared';
import { basePath, myLinkPath, signedUpParameter } from '../src/domain/links';
import { buildNotes } from '../src/domain/notes';
import { packageKeys, packageLabels } from '../src/domain/packages';
import { programStatsPath, type ProgramStats } from '../src/domain/program-stats';
import { buildPayload } from '../src/domain/registration';
import { channelLink } from '../src/web/marketer-link';
import { chromiumArgs, requireChromium } from '../scripts/local-machine';
import { e2eLeadsApiKey, marketerToken } from '../testing/marketer-auth';
import { chromiumEngine } from './engine-chromium';
import { firefoxEngine } from './engine-firefox';
import {
  click,
  fieldValue,
  hydrated,
  liveText,
  typeInto,
  waitFor,
  type Engine,
  type EngineName,
  type EnginePage,
  type PageOptions,
} from './engine-page';
import { webKitEngine } from './engine-webkit';
import { arabicIndic, arabicName, putPeople, storedRows, uniquePhone } from './support';

// The core flows in each engine (a Playwright project per engine, playwright.config.ts): the
// same steps through each engine's own driver, at a phone's size. Chromium's other specs go
// further; these pin down what a visitor on an iPhone (WebKit) or in Firefox does.

const phone = { width: 390, height: 844 };
const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`;

const test = base.extend<
  { open: (options?: Partial<PageOptions>) => Promise<EnginePage> },
  { engineName: EngineName; engine: Engine }
>({
  engineName: ['chromium', { option: true, scope: 'worker' }],
  engine: [
    async ({ engineName }, use) => {
      let engine: Engine;
      if (engineName === 'chromium') {
        const browser = await chromium.launch({
          executablePath: requireChromium(),
          args: chromiumArgs,
        });
        engine = { ...chromiumEngine(browser, baseURL), stop: () => browser.close() };
      } else {
        engine = engineName === 'firefox' ? firefoxEngine(baseURL) : await webKitEngine(baseURL);
      }
      await use(engine);
      await engine.stop();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  // Every page a test opens is closed after it, and fails it with any page or console error
  // where the driver reports them.
  open: async ({ engine }, use) => {
    const pages: EnginePage[] = [];
    await use(async (options) => {
      const page = await engine.open({ ...phone, javaScript: true, ...options });
      pages.push(page);
      return page;
    });
    for (const page of pages) {
      // The browser's own line for each 4xx the tests cause (a refused post, the marketer's
      // numbers asked without a token) is expected.
      const errors = page.errors()?.filter((error) => !error.startsWith('Failed to load resource'));
      await page.close();
      if (errors !== undefined) expect(errors, 'page errors and console errors').toEqual([]);
    }
  },
});

async function openApp(page: EnginePage, path: string) {
  await page.goto(path);
  await waitFor(page, 'hydration', hydrated, null);
}

async function fillForm(page: EnginePage, values: { name: string; phone: string; email?: string }) {
  await typeInto(page, arForm.fieldName, values.name);
  if (values.email !== undefined) await typeInto(page, arForm.fieldEmail, values.email);
  await typeInto(page, arForm.fieldPhone, values.phone);
}

function waitForText(page: EnginePage, role: string, text: string) {
  return waitFor(
    page,
    `${role} '${text}'`,
    ({ role: wanted, text: expected }) =>
      document.querySelector(`[role="${wanted}"]`)?.textContent === expected,
    { role, text },
  );
}

const formRoutes = [
  {
    path: '/register/register-client/premium_reco/m-5001',
    packageName: 'premium_reco',
    marketingId: 'm-5001',
  },
  { path: '/register/register-client/economy_portfolio', packageName: 'economy_portfolio' },
  { path: '/register/marketer/5002', marketingId: '5002' },
  { path: '/register/register-client' },
];

test('a sign-up through each form route is stored with its notes and marketer', async ({
  open,
}) => {
  const page = await open();
  const phones: string[] = [];
  for (const route of formRoutes) {
    const phoneNumber = uniquePhone();
    await openApp(page, route.path);
    await fillForm(page, {
      name: arabicName,
      phone: phoneNumber,
      email: `e2e-${phoneNumber}@example.com`,
    });
    await click(page, { button: arForm.buttonSubmit });
    await waitForText(page, 'status', arForm.success);
    expect(await page.evaluate(fieldValue, arForm.fieldPhone), 'the form is emptied').toBe('');
    phones.push(phoneNumber);
  }
  const rows = await storedRows(phones);
  expect(rows.map(({ name, notes, marketing_id }) => ({ name, notes, marketing_id }))).toEqual(
    formRoutes.map((route) => ({
      name: arabicName,
      notes: buildNotes(route),
      marketing_id: route.marketingId ?? null,
    })),
  );
});

test('a wrong phone shows the Arabic error and keeps what was typed', async ({ open }) => {
  const page = await open();
  await openApp(page, formRoutes[0]?.path ?? '');
  await fillForm(page, { name: arabicName, phone: '96651234', email: 'nora@example.com' });
  await click(page, { button: arForm.buttonSubmit });
  await waitForText(page, 'alert', arForm.errorInvalid);
  expect(await page.evaluate(fieldValue, arForm.fieldName)).toBe(arabicName);
  expect(await page.evaluate(fieldValue, arForm.fieldEmail)).toBe('nora@example.com');
  expect(await page.evaluate(fieldValue, arForm.fieldPhone)).toBe('96651234');
  expect(
    await page.evaluate(
      () => document.querySelector('#field-phone')?.getAttribute('aria-invalid'),
      null,
    ),
  ).toBe('true');
});

test('a mobile typed in Arabic-Indic digits is stored as a 9665 number', async ({ open }) => {
  const page = await open();
  const phoneNumber = uniquePhone();
  await openApp(page, '/register/register-client/classic_reco');
  await fillForm(page, { name: arabicName, phone: arabicIndic(phoneNumber) });
  expect(await page.evaluate(fieldValue, arForm.fieldPhone)).toBe(phoneNumber);
  await click(page, { button: arForm.buttonSubmit });
  await waitForText(page, 'status', arForm.success);
  const [row] = await storedRows([phoneNumber]);
  expect(row).toMatchObject({ name: arabicName, phone: phoneNumber, package_key: 'classic_reco' });
});

test.describe('with JavaScript off', () => {
  test('a sign-up is posted by the browser and stored with its notes and marketer', async ({
    open,
  }) => {
    const page = await open({ javaScript: false });
    const route = formRoutes[0] ?? { path: '' };
    const phoneNumber = uniquePhone();
    await page.goto(route.path);
    await fillForm(page, { name: arabicName, phone: phoneNumber });
    await click(page, { button: arForm.buttonSubmit });
    await waitFor(
      page,
      'the success page',
      (parameter) => location.search === `?${parameter}` && document.readyState === 'complete',
      signedUpParameter,
    );
    expect(await page.evaluate(liveText, 'status')).toBe(arForm.success);
    expect(await page.evaluate(hydrated, null), 'no script ran').toBe(false);
    const [row] = await storedRows([phoneNumber]);
    expect(row).toMatchObject({
      name: arabicName,
      notes: buildNotes(route),
      marketing_id: 'm-5001',
    });
  });

  test('a wrong phone is refused with the Arabic error and the values kept', async ({ open }) => {
    const page = await open({ javaScript: false });
    await page.goto('/register/marketer/5003');
    await fillForm(page, { name: arabicName, phone: '12345', email: 'nora@example.com' });
    await click(page, { button: arForm.buttonSubmit });
    await waitFor(
      page,
      "the server's answer",
      (error) =>
        document.readyState === 'complete' &&
        document.querySelector('[role="alert"]')?.textContent === error,
      arForm.errorInvalid,
    );
    expect(await page.evaluate(fieldValue, arForm.fieldName)).toBe(arabicName);
    expect(await page.evaluate(fieldValue, arForm.fieldEmail)).toBe('nora@example.com');
    expect(await page.evaluate(fieldValue, arForm.fieldPhone)).toBe('12345');
  });

  test('the link page says that it needs JavaScript', async ({ open }) => {
    const page = await open({ javaScript: false });
    await page.goto(`${basePath}${myLinkPath}`);
    const shown = await page.evaluate(
      (message) =>
        Array.from(document.querySelectorAll('main *')).some(
          (element) =>
            element.textContent === message && element.getBoundingClientRect().height > 0,
        ),
      ar.errorLinkPageNeedsScript,
    );
    expect(shown).toBe(true);
  });
});

/** The QR codes in a PNG, decoded. */
function decodeQrCode(png: Buffer): string | undefined {
  const { width, height, data } = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(data), width, height)?.data;
}

test('the link page: the link, copying it with its alert, a QR code that reads as the link', async ({
  open,
}) => {
  const page = await open();
  // localStorage belongs to the origin: any page of it can set the platform's user.
  await page.goto('/register/register-client');
  await page.evaluate(() => localStorage.setItem('user', '{"role":"marketing","id":42}'), null);
  await openApp(page, `${basePath}${myLinkPath}`);
  const link = `${baseURL}/register/marketer/42`;
  await waitFor(page, 'the link', fieldValue, arLinkPage.heading);
  expect(await page.evaluate(fieldValue, arLinkPage.heading)).toBe(link);

  await click(page, { button: arLinkPage.buttonCopy });
  expect(await page.nextAlert()).toBe(arLinkPage.alertCopied);

  // The code is drawn once its chunk has loaded; a screenshot can be the frame before.
  await waitFor(
    page,
    'the QR code',
    (name) => {
      const code = document.querySelector(`[role="img"][aria-label="${name}"]`);
      code?.scrollIntoView({ block: 'center' });
      return code !== null;
    },
    arLinkPage.altQrCode,
  );
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    null,
  );
  expect(decodeQrCode(await page.screenshot())).toBe(channelLink(link, 'qr'));

  // What was copied, pasted by hand into a field elsewhere.
  await openApp(page, '/register/register-client');
  await click(page, { field: arForm.fieldName });
  await page.paste();
  expect(await page.evaluate(fieldValue, arForm.fieldName)).toBe(link);
});

/**
 * In the page: what would show at this width that should not: the page wider than the
 * viewport, a button's label on two lines or out of its button, the package label of the
 * heading broken although one line of the heading could hold it.
 */
function layoutProblems(label: string | null): string[] {
  const problems: string[] = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) {
    problems.push(`the page is ${root.scrollWidth} px wide in ${root.clientWidth} px`);
  }
  // Lines of a range: its boxes grouped by their middles (one line may hold Arabic and Latin
  // boxes of different heights; lines are a line-height apart).
  const lines = (range: Range, fontSize: number) => {
    const middles = Array.from(range.getClientRects())
      .filter((box) => box.width > 0)
      .map((box) => box.top + box.height / 2)
      .sort((a, b) => a - b);
    return middles.filter(
      (middle, index) => index === 0 || middle - (middles[index - 1] ?? 0) > fontSize / 2,
    ).length;
  };
  for (const button of Array.from(document.querySelectorAll('button, .button'))) {
    if (!(button instanceof HTMLElement) || button.offsetParent === null) continue;
    const range = document.createRange();
    range.selectNodeContents(button);
    const name = button.textContent?.trim();
    if (lines(range, parseFloat(getComputedStyle(button).fontSize)) > 1) {
      problems.push(`'${name}' wraps`);
    }
    // Measured in fractional pixels: a zoomed page's rounded scrollWidth can be one over.
    const text = range.getBoundingClientRect();
    const box = button.getBoundingClientRect();
    if (text.left < box.left - 0.5 || text.right > box.right + 0.5) {
      problems.push(`'${name}' overflows its button`);
    }
  }
  const heading = document.querySelector('h1');
  if (label !== null && heading !== null) {
    // The label's text, wherever the heading's markup puts it.
    const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
    const nodes: Text[] = [];
    while (walker.nextNode()) nodes.push(walker.currentNode as Text);
    const whole = nodes.map((node) => node.data).join('');
    const start = whole.lastIndexOf(label);
    if (start < 0) throw new Error(`no '${label}' in the heading '${whole}'`);
    const range = document.createRange();
    let offset = 0;
    for (const node of nodes) {
      const end = offset + node.data.length;
      if (start >= offset && start <= end) range.setStart(node, start - offset);
      if (start + label.length >= offset && start + label.length <= end) {
        range.setEnd(node, start + label.length - offset);
      }
      offset = end;
    }
    const probe = document.createElement('span');
    probe.style.whiteSpace = 'nowrap';
    probe.textContent = label;
    heading.append(probe);
    const fits = probe.getBoundingClientRect().width <= heading.clientWidth;
    probe.remove();
    if (fits && lines(range, parseFloat(getComputedStyle(heading).fontSize)) > 1) {
      problems.push(`the heading breaks inside '${label}'`);
    }
  }
  return problems;
}

const widths = Array.from({ length: 17 }, (_, index) => 320 + index * 10);

test('at every phone width from 320 to 480 px nothing overflows and no label breaks', async ({
  open,
}) => {
  const page = await open();
  const screens = [
    ...packageKeys.map((key) => ({
      path: `/register/register-client/${key}/7`,
      label: packageLabels[key] as string,
    })),
    { path: '/register/register-client', label: ar.headingFreeTrial },
    { path: `${basePath}${myLinkPath}`, label: null },
  ];
  await page.goto('/register/register-client');
  await page.evaluate(() => localStorage.setItem('user', '{"role":"marketing","id":42}'), null);
  const problems: string[] = [];
  for (const { path, label } of screens) {
    await openApp(page, path);
    await waitFor(page, 'the page', () => document.querySelector('h1') !== null, null);
    for (const width of widths) {
      await page.resize(width, phone.height);
      for (const problem of await page.evaluate(layoutProblems, label)) {
        problems.push(`${path} at ${width} px: ${problem}`);
      }
    }
  }
  expect(problems).toEqual([]);
});

/** A sign-up through a marketer's link, as the form posts it; then a client if `client`. */
async function signUpThrough(marketingId: string, client: boolean) {
  const stored = await fetch(`${baseURL}/api/external-register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      buildPayload({ name: arabicName, email: '', phone: uniquePhone() }, { marketingId }),
    ),
  });
  expect(stored.status).toBe(201);
  if (!client) return;
  const { id } = (await stored.json()) as { id: string };
  const changed = await fetch(`${baseURL}/api/leads/${id}/status`, {
    method: 'POST',
    headers: { authorization: `Bearer ${e2eLeadsApiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'client' }),
  });
  expect(changed.status).toBe(200);
}

async function programStats(token: string): Promise<ProgramStats> {
  const answer = await fetch(`${baseURL}${programStatsPath}?days=30`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as ProgramStats;
}

/**
 * In the page, once the programme's numbers are shown: the totals by label, and the cells of
 * the marketer's row in the marketers' table, the row whose header reads `rowName` (null until
 * both are there).
 */
function programShown({ caption, rowName }: { caption: string; rowName: string }) {
  const table = Array.from(document.querySelectorAll('table')).find(
    (candidate) => candidate.caption?.textContent === caption,
  );
  const row = Array.from(table?.querySelectorAll('tbody tr') ?? []).find(
    (candidate) => candidate.querySelector('th')?.textContent === rowName,
  );
  if (row === undefined) return null;
  const totals = Object.fromEntries(
    Array.from(document.querySelectorAll('dt')).map((term) => [
      term.textContent,
      term.nextElementSibling?.textContent ?? '',
    ]),
  );
  return { totals, cells: Array.from(row.querySelectorAll('td')).map((cell) => cell.textContent) };
}

test("the programme's page: an admin sees the totals and the marketers stored; a marketer is refused", async ({
  open,
  engineName,
}) => {
  const run = `${engineName}-${Date.now()}`;
  const marketingId = `e2e-engine-${run}`;
  const admin = await marketerToken(`e2e-admin-${run}`, 'admin');
  const page = await open();
  // A visit through the marketer's link, then four leads, three of them clients.
  await openApp(page, `/register/marketer/${marketingId}`);
  for (const client of [true, true, true, false]) await signUpThrough(marketingId, client);
  // Visits are written once a second.
  await expect
    .poll(async () => {
      const stats = await programStats(admin);
      return stats.marketers.find((row) => row.marketing_id === marketingId)?.visits;
    })
    .toBe(1);

  // The platform leaves its token in localStorage, which any page of the origin can set.
  await page.evaluate((token) => localStorage.setItem('token', token), admin);
  const before = await programStats(admin);
  await openApp(page, '/register/program');
  const shown = await waitFor(page, "the marketer's row", programShown, {
    caption: arProgram.byMarketer,
    rowName: marketingId,
  });
  const after = await programStats(admin);
  // Visits, unique visitors, leads, clients, conversion (four leads to one visitor: in words),
  // client rate.
  expect(shown.cells.slice(0, 4)).toEqual(['1', '1', '4', '3']);
  expect(shown.cells[4]).toBe(arStats.conversionMoreLeads);
  expect(shown.cells[5]).toContain('75');
  // Other tests sign up in the same database meanwhile: the page's totals are the store's at
  // some moment between the two answers around it.
  const total = (label: string) => Number(shown.totals[label]?.replace(/\D/g, ''));
  for (const [label, key] of [
    [arStats.statSignUps, 'leads'],
    [arStats.statClients, 'clients'],
    [arStats.statVisits, 'visits'],
  ] as const) {
    expect(total(label), label).toBeGreaterThanOrEqual(before.totals[key]);
    expect(total(label), label).toBeLessThanOrEqual(after.totals[key]);
  }

  await page.evaluate(
    (token) => localStorage.setItem('token', token),
    await marketerToken('42', 'marketing'),
  );
  await openApp(page, '/register/program');
  expect(
    await waitFor(page, 'the refusal', liveText, 'alert'),
    "a marketer's token is not authorised",
  ).toBe(ar.errorNotAuthorized);
});

/** In the page: the header of each row the marketers' table shows, when it reads `rows` alone. */
function marketersShown({ caption, rows }: { caption: string; rows: string[] }) {
  const table = Array.from(document.querySelectorAll('table')).find(
    (candidate) => candidate.caption?.textContent === caption,
  );
  const shown = Array.from(table?.querySelectorAll('tbody th') ?? [], (cell) => cell.textContent);
  return JSON.stringify(shown) === JSON.stringify(rows) && shown;
}

test("the programme's page: a manager sees marketers by name and finds one however its letters are typed", async ({
  open,
  engineName,
  request,
}) => {
  const run = `${engineName}-${Date.now()}`;
  const [marketingId, otherId] = [`e2e-named-${run}`, `e2e-other-${run}`];
  // Names of this test's own (the e2e run shares one database), the same but for the first name.
  const [name, otherName] = [`أسامة الشهري ${run}`, `أحمد الشهري ${run}`];
  const person = (marketing_id: string, fullName: string) => ({
    marketing_id,
    name: fullName,
    team_leader_id: null,
    email: null,
    active: true,
  });
  await putPeople(request, [person(marketingId, name), person(otherId, otherName)]);
  // Leads in the period put them on the page, the first with three (ranked above the other).
  for (const client of [true, false, false]) await signUpThrough(marketingId, client);
  await signUpThrough(otherId, false);
  const page = await open();
  // The platform leaves its token in the origin's localStorage: a page of the origin first.
  await openApp(page, '/register/program');
  await page.evaluate(
    (token) => localStorage.setItem('token', token),
    await marketerToken(`e2e-admin-${run}`, 'admin'),
  );
  await openApp(page, '/register/program');
  const named = arStats.named(name, marketingId);
  // The whole run's marketers share the page, more than the 50 rows it shows before "show all":
  // this test's two are found by what their names end with, both by name, most leads first.
  await typeInto(page, arProgram.search, run);
  await waitFor(page, 'both marketers by name', marketersShown, {
    caption: arProgram.byMarketer,
    rows: [named, arStats.named(otherName, otherId)],
  });
  const shown = await waitFor(page, 'the marketer by name', programShown, {
    caption: arProgram.byMarketer,
    rowName: named,
  });
  expect(shown.cells.slice(0, 4)).toEqual(['0', '0', '3', '1']);

  // Typed afresh with a bare alef for أ and a haa for ة, as many type them: the first alone.
  await openApp(page, '/register/program');
  await typeInto(page, arProgram.search, `اسامه الشهري ${run}`);
  await waitFor(page, 'that marketer alone', marketersShown, {
    caption: arProgram.byMarketer,
    rows: [named],
  });
  expect(
    await page.evaluate(
      (id) => document.getElementById(id)?.textContent ?? null,
      'marketer-search-found',
    ),
  ).toBe(arProgram.searchFound(1));
});
