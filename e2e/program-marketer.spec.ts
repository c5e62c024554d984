import type { APIRequestContext, Page } from '@playwright/test';
import { arStats } from '../src/domain/catalogue/marketer-stats';
import { arProgram, arReview } from '../src/domain/catalogue/program';
import { arProgramMarketer } from '../src/domain/catalogue/program-marketer';
import { ar } from '../src/domain/catalogue/shared';
import { buildPayload } from '../src/domain/registration';
import { marketerToken } from '../testing/marketer-auth';
import { axe, expect, flagLead, open, putPeople, test, uniquePhone } from './support';

// Issue 48: one marketer's page on the programme, as a manager opens it from their row (the
// e2e server leaves PROGRAM_ROLES unset: admin), on a phone (390 px) and a desktop (1280 px).

const prospect = { name: 'نورة الشهري', email: 'noura@example.com' };

async function signUp(request: APIRequestContext, marketingId: string): Promise<string> {
  const stored = await request.post('/api/external-register', {
    data: buildPayload({ ...prospect, phone: uniquePhone() }, { marketingId }),
  });
  expect(stored.status()).toBe(201);
  return ((await stored.json()) as { id: string }).id;
}

async function signIn(page: Page, token: string) {
  await page.addInitScript((stored) => localStorage.setItem('token', stored), token);
}

test('a manager opens a marketer from the programme’s table onto their page, on the same period, and back', async ({
  page,
  request,
}, testInfo) => {
  const run = `${testInfo.project.name}-${Date.now()}`;
  const marketer = `e2e-page-${run}`;
  const leader = `e2e-leader-${run}`;
  await putPeople(request, [
    {
      marketing_id: marketer,
      name: 'سلمى العتيبي',
      team_leader_id: leader,
      email: null,
      active: true,
    },
    {
      marketing_id: leader,
      name: 'نورة القحطاني',
      team_leader_id: null,
      email: null,
      active: true,
    },
  ]);
  await signUp(request, marketer);
  flagLead(await signUp(request, marketer), 'fast');
  await signIn(page, await marketerToken(`e2e-admin-${run}`, 'admin'));
  await open(page, '/register/program?days=7');

  const name = arStats.named('سلمى العتيبي', marketer);
  // Found by the search box: the shared database has other tests' marketers past the first 50.
  await page.getByLabel(arProgram.search).fill(marketer);
  await page
    .getByRole('table', { name: arProgram.byMarketer })
    .getByRole('link', { name, exact: true })
    .click();
  await expect(page).toHaveURL(
    `/register/program/marketers/${encodeURIComponent(marketer)}?days=7`,
  );
  await expect(
    page.getByRole('heading', { level: 1, name: arProgramMarketer.heading(name) }),
  ).toBeVisible();
  const fact = (label: string) =>
    page
      .locator('dt', { hasText: new RegExp(`^${label}$`) })
      .first()
      .locator('+ dd');
  await expect(fact(arProgramMarketer.team)).toHaveText(arStats.named('نورة القحطاني', leader));
  await expect(fact(arStats.statSignUps)).toHaveText('2');
  await expect(page.getByRole('region', { name: arProgramMarketer.outcomes })).toBeVisible();
  const awaiting = page.getByRole('region', { name: arProgramMarketer.awaiting(1) });
  await expect(awaiting.getByText(arReview.flags.fast)).toBeVisible();
  await expect(page.getByRole('region', { name: arProgramMarketer.notCredited(0) })).toContainText(
    arProgramMarketer.notCreditedNone,
  );
  // No prospect on it: no name, no e-mail, no full phone.
  const text = await page.locator('main').innerText();
  expect(text).not.toContain(prospect.name);
  expect(text).not.toContain(prospect.email);
  expect(text).not.toMatch(/9665\d{8}/);

  // Nothing overflows the page: the tables scroll in their regions, if at all.
  const sizes = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }));
  expect(sizes.page).toBeLessThanOrEqual(sizes.viewport);
  expect(await axe(page, "a marketer's page", testInfo.project.name)).toEqual([]);
  await page.screenshot({ path: testInfo.outputPath('marketer-page.png'), fullPage: true });

  // Another period, kept in the address and in the way back.
  await page.getByLabel(arStats.fieldPeriod, { exact: true }).selectOption('30');
  await expect(page).toHaveURL(/\?days=30$/);
  await page.getByRole('link', { name: arProgramMarketer.back }).click();
  await expect(page).toHaveURL('/register/program?days=30');
  await expect(page.getByRole('heading', { level: 1, name: arProgram.heading })).toBeVisible();
});

test('an id the directory does not know, with no sign-ups: the page says so, with zeros', async ({
  page,
}, testInfo) => {
  const unknown = `e2e-nobody-${testInfo.project.name}-${Date.now()}`;
  await signIn(page, await marketerToken(`e2e-admin-${unknown}`, 'admin'));
  await open(page, `/register/program/marketers/${unknown}`);
  await expect(page.getByText(arProgramMarketer.unknown)).toBeVisible();
  await expect(
    page.getByRole('heading', { level: 1, name: arProgramMarketer.heading(unknown) }),
  ).toBeVisible();
  await expect(
    page.locator('dt', { hasText: new RegExp(`^${arStats.statSignUps}$`) }).locator('+ dd'),
  ).toHaveText('0');
  expect(await axe(page, "an unknown marketer's page", testInfo.project.name)).toEqual([]);
});

test('a marketer’s own token is refused the page', async ({ page }, testInfo) => {
  const own = `e2e-own-${testInfo.project.name}-${Date.now()}`;
  await signIn(page, await marketerToken(own));
  await open(page, `/register/program/marketers/${own}`);
  await expect(page.getByRole('alert')).toHaveText(ar.errorNotAuthorized);
});
