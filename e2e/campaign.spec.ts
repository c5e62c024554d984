import type { Page } from '@playwright/test';
import { arForm } from '../src/domain/catalogue/form';
import { signedUpParameter } from '../src/domain/links';
import { arabicName, expect, open, storedRows, test, uniquePhone } from './support';

// Campaign attribution (issue 21): the utm_* parameters of the page's address are stored with
// the sign-up, cleaned by the page, whether its JavaScript sends it or the browser posts the form.

const path = '/register/register-client/premium_reco/m-4001';
const allFive = {
  utm_source: 'snapchat',
  utm_medium: 'cpc',
  utm_campaign: 'ramadan',
  utm_term: 'أسهم',
  utm_content: 'video',
};

async function fillAndSubmit(page: Page, phone: string) {
  await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
  await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('status')).toHaveText(arForm.success);
}

test('a sign-up from a page opened with the five parameters stores all five', async ({ page }) => {
  const phone = uniquePhone();
  await open(page, `${path}?${new URLSearchParams(allFive).toString()}`);
  await fillAndSubmit(page, phone);
  const [row] = await storedRows([phone]);
  expect(row).toMatchObject({ ...allFive, marketing_id: 'm-4001', package_key: 'premium_reco' });
});

test('a bad parameter never costs the sign-up: a long campaign is cut, the rest left out', async ({
  page,
}) => {
  const phone = uniquePhone();
  const campaign = 'r'.repeat(300);
  await open(page, `${path}?utm_campaign=${campaign}&utm_source=snap%07chat&utm_foo=bar`);
  await fillAndSubmit(page, phone);
  const [row] = await storedRows([phone]);
  expect(row).toMatchObject({
    utm_source: null,
    utm_medium: null,
    utm_campaign: 'r'.repeat(100),
    utm_term: null,
    utm_content: null,
  });
});

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  test('the form carries the parameters too, and the page after it keeps them', async ({
    page,
  }) => {
    const phone = uniquePhone();
    const query = new URLSearchParams(allFive).toString();
    await page.goto(`${path}?${query}&utm_foo=bar`);
    const answered = page.waitForResponse((response) => response.request().method() === 'POST');
    await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
    await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);
    await page.getByRole('button', { name: arForm.buttonSubmit }).click();
    expect((await answered).status()).toBe(303);
    await page.waitForURL(`${path}?${query}&${signedUpParameter}`);
    await expect(page.getByRole('status')).toHaveText(arForm.success);
    const [row] = await storedRows([phone]);
    expect(row).toMatchObject(allFive);
  });
});
