import type { Page } from '@playwright/test';
import { ar, arStats } from '../src/domain/catalogue';
import { buildPayload } from '../src/domain/registration';
import { marketerToken } from '../testing/marketer-auth';
import { axe, expect, open, test, uniquePhone } from './support';

// Issue 17: the link page shows a marketer their own numbers, for the platform's token.

const path = '/register/my-registration-link';
const statsSection = (page: Page) => page.getByRole('region', { name: arStats.heading });

async function signIn(page: Page, marketingId: string, token: string | null) {
  await page.addInitScript(
    ([user, stored]) => {
      localStorage.setItem('user', user);
      if (stored !== null) localStorage.setItem('token', stored);
    },
    [JSON.stringify({ role: 'marketing', id: marketingId }), token] as const,
  );
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
  await expect(page.getByRole('textbox', { name: ar.headingMyLink })).toHaveValue(
    `${baseURL}/register/marketer/42`,
  );
});
