import type { Page } from '@playwright/test';
import { arForm } from '../src/domain/catalogue/form';
import { arNotifications } from '../src/domain/catalogue/notifications';
import { ar } from '../src/domain/catalogue/shared';
import { signedUpParameter } from '../src/domain/links';
import { buildNotes } from '../src/domain/notes';
import { sampleBrand } from '../testing/sample-brand';
import { arabicName, axe, brand, expect, storedRows, test, uniquePhone } from './support';

// JavaScript off (or blocked by an in-app browser): the server-rendered form is a plain HTML
// form, posted to its own page and answered by the server with the page (docs/product.md §7).

const routes = [
  { path: '/register/register-client/premium_reco/m-3001', marketingId: 'm-3001' },
  { path: '/register/register-client/classic_portfolio', marketingId: null },
  { path: '/register/marketer/3002', marketingId: '3002' },
  { path: '/register/register-client', marketingId: null },
];

// An e-mail's links (docs/notifications.md), opened as a mail scanner or the person does.
const confirmPage = '/register/notifications/confirm/no-script-token';
const stopPage = '/register/notifications/stop/weekly/no-script-token';

const nameField = (page: Page) => page.getByRole('textbox', { name: arForm.fieldName });
const emailField = (page: Page) => page.getByRole('textbox', { name: arForm.fieldEmail });
const phoneField = (page: Page) => page.getByRole('textbox', { name: arForm.fieldPhone });

/** Fills the form and submits it, returning the server's answer to the post. */
async function submit(page: Page, phone: string) {
  await nameField(page).fill(arabicName);
  await phoneField(page).fill(phone);
  const answered = page.waitForResponse((response) => response.request().method() === 'POST');
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  return answered;
}

/** The server's answer is a whole screen: the provider's header, privacy notice and licence line too. */
async function expectProvider(page: Page) {
  await expect(page.getByRole('banner')).toHaveText(brand);
  await expect(page.getByRole('link', { name: ar.privacyLink })).toHaveAttribute(
    'href',
    sampleBrand.privacyUrl,
  );
  await expect(page.getByText(ar.licence(sampleBrand.licence))).toBeVisible();
}

async function expectSignedUp(page: Page, path: string) {
  await page.waitForURL(`${path}?${signedUpParameter}`);
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  await expect(page.getByRole('alert')).toHaveText('');
  for (const field of [nameField, emailField, phoneField]) {
    await expect(field(page)).toHaveValue('');
  }
  await expectProvider(page);
}

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  test('a sign-up on each form route is stored with the route’s notes and marketer', async ({
    page,
  }) => {
    const phones: string[] = [];
    for (const { path } of routes) {
      await test.step(path, async () => {
        const phone = uniquePhone();
        phones.push(phone);
        await page.goto(path);
        const answer = await submit(page, phone);
        expect(answer.status()).toBe(303);
        await expectSignedUp(page, path);
      });
    }
    const rows = await storedRows(phones);
    expect(rows.map(({ notes, marketing_id }) => ({ notes, marketing_id }))).toEqual([
      {
        notes: buildNotes({ packageName: 'premium_reco', marketingId: 'm-3001' }),
        marketing_id: 'm-3001',
      },
      { notes: buildNotes({ packageName: 'classic_portfolio' }), marketing_id: null },
      { notes: buildNotes({ marketingId: '3002' }), marketing_id: '3002' },
      { notes: buildNotes({}), marketing_id: null },
    ]);
  });

  test('a reload of the success page stores nothing twice', async ({ page }) => {
    const path = routes[0]?.path ?? '';
    const phone = uniquePhone();
    await page.goto(path);
    await submit(page, phone);
    await expectSignedUp(page, path);

    await page.reload();
    await expectSignedUp(page, path);
    // storedRows fails unless there is exactly one row for the phone.
    expect((await storedRows([phone]))[0]?.name).toBe(arabicName);
  });

  test('an invalid phone: the page again with 400, the Arabic error on the field, values kept', async ({
    page,
  }) => {
    await page.goto(routes[2]?.path ?? '');
    await emailField(page).fill('nora@example.com');
    const answer = await submit(page, '12345');

    expect(answer.status()).toBe(400);
    await expect(page.getByRole('alert')).toHaveText(arForm.errorInvalid);
    await expect(phoneField(page)).toHaveValue('12345');
    await expect(phoneField(page)).toHaveAttribute('aria-invalid', 'true');
    await expect(phoneField(page)).toHaveAccessibleDescription(arForm.errorInvalid);
    await expect(nameField(page)).toHaveValue(arabicName);
    await expect(emailField(page)).toHaveValue('nora@example.com');
    await expect(page.getByRole('button', { name: arForm.buttonSubmit })).toBeEnabled();
    await expectProvider(page);
  });

  test("an e-mail's confirmation and unsubscribe pages: one button, a form posted to the same address", async ({
    page,
  }) => {
    for (const [path, button, lead] of [
      [confirmPage, arNotifications.confirmButton, arNotifications.confirmLead],
      [stopPage, arNotifications.stop.weekly.button, arNotifications.stop.weekly.lead],
    ] as const) {
      await test.step(path, async () => {
        expect((await page.goto(path))?.status()).toBe(200);
        await expect(page.getByText(lead)).toBeVisible();
        await expect(page.getByRole('button')).toHaveCount(1);
        const form = page.locator('form', { has: page.getByRole('button', { name: button }) });
        await expect(form).toHaveAttribute('method', 'post');
        // No action: the browser posts to the address it shows, the link's.
        await expect(form).not.toHaveAttribute('action');
        await expect(page.getByRole('banner')).toHaveText(brand);
        await expect(page.getByText(ar.licence(sampleBrand.licence))).toBeVisible();
      });
    }
  });
});

// axe runs in the page, so these pages keep JavaScript on but never get the app's script: what
// is checked is the server's answer, as a browser without JavaScript shows it.
test.describe('the server’s answers, without the app', () => {
  test.beforeEach(async ({ page }) => {
    await page.route(/\/register\/assets\/.*\.js$/, (route) => route.abort());
  });

  test('axe finds nothing on the success page', async ({ page }, testInfo) => {
    const path = routes[0]?.path ?? '';
    await page.goto(path);
    await submit(page, uniquePhone());
    await expectSignedUp(page, path);
    expect(
      await axe(page, 'form posted without the app, signed up', testInfo.project.name),
    ).toEqual([]);
  });

  test("axe finds nothing on an e-mail's confirmation and unsubscribe pages", async ({
    page,
  }, testInfo) => {
    for (const [path, button] of [
      [confirmPage, arNotifications.confirmButton],
      [stopPage, arNotifications.stop.weekly.button],
    ] as const) {
      await page.goto(path);
      await expect(page.getByRole('button', { name: button })).toBeVisible();
      expect(
        await axe(page, `e-mail page without the app: ${path}`, testInfo.project.name),
      ).toEqual([]);
    }
  });

  test('axe finds nothing on the invalid-input page', async ({ page }, testInfo) => {
    await page.goto(routes[1]?.path ?? '');
    expect((await submit(page, '12345')).status()).toBe(400);
    await expect(page.getByRole('alert')).toHaveText(arForm.errorInvalid);
    expect(await axe(page, 'form posted without the app, invalid', testInfo.project.name)).toEqual(
      [],
    );
  });
});
