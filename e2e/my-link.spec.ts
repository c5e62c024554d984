import type { Page } from '@playwright/test';
import { arForm } from '../src/domain/catalogue/form';
import { arLinkPage } from '../src/domain/catalogue/link-page';
import { ar } from '../src/domain/catalogue/shared';
import { brand, expect, open, test } from './support';

// docs/product.md §2 and §6: a marketer's link page. The logged-in user is whatever localStorage 'user'
// holds, so each test stores it before any page script runs.

const path = '/register/my-registration-link';

async function storeUser(page: Page, value: string | null) {
  if (value !== null) {
    await page.addInitScript((user) => localStorage.setItem('user', user), value);
  }
}

const allowed = [
  { role: 'marketing', id: 42, expectedId: '42' },
  { role: 'team_leader_marketing', id: 'tl-7', expectedId: 'tl-7' },
];
for (const { role, id, expectedId } of allowed) {
  test(`a ${role} user sees their own link`, async ({ page, baseURL }) => {
    await storeUser(page, JSON.stringify({ role, id, name: 'ignored' }));
    await open(page, path);
    await expect(page).toHaveTitle(ar.titleMyLink(brand));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(arLinkPage.heading);
    const link = page.getByRole('textbox', { name: arLinkPage.heading });
    await expect(link).toHaveValue(`${baseURL}/register/marketer/${expectedId}`);
    await expect(link).toHaveAttribute('readonly', '');
    await expect(page.getByRole('button', { name: arLinkPage.buttonCopy })).toBeVisible();
    await expect(page.getByText(ar.errorNotAuthorized)).toHaveCount(0);
  });
}

const refused = [
  { case: 'no user', stored: null },
  { case: 'malformed JSON', stored: '{"role":"marketing",' },
  { case: 'another role', stored: JSON.stringify({ role: 'client', id: 9 }) },
  { case: 'a marketer without an id', stored: JSON.stringify({ role: 'marketing' }) },
  { case: 'a JSON string', stored: JSON.stringify('marketing') },
];
for (const { case: name, stored } of refused) {
  test(`${name} sees the not-authorised message`, async ({ page }) => {
    await storeUser(page, stored);
    await open(page, path);
    await expect(page.getByText(ar.errorNotAuthorized)).toBeVisible();
    await expect(page.getByRole('textbox')).toHaveCount(0);
    await expect(page.getByRole('button', { name: arLinkPage.buttonCopy })).toHaveCount(0);
    await expect(page).toHaveTitle(ar.titleMyLink(brand));
  });
}

test('copying puts the link on the clipboard and says so', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await storeUser(page, JSON.stringify({ role: 'marketing', id: 42 }));
  const alerts: string[] = [];
  page.on('dialog', async (dialog) => {
    alerts.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.accept();
  });
  await open(page, path);
  await page.getByRole('button', { name: arLinkPage.buttonCopy }).click();
  await expect.poll(() => alerts).toEqual([`alert: ${arLinkPage.alertCopied}`]);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(`${baseURL}/register/marketer/42`);
});

test("the link opens the marketer's form", async ({ page }) => {
  await storeUser(page, JSON.stringify({ role: 'marketing', id: 42 }));
  await open(page, path);
  const link = await page.getByRole('textbox', { name: arLinkPage.heading }).inputValue();
  await open(page, link);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(
    `${arForm.headingPrefix} ${ar.headingFreeTrial}`,
  );
});
