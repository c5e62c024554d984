import type { Page } from '@playwright/test';
import { arForm } from '../src/domain/catalogue/form';
import { ar } from '../src/domain/catalogue/shared';
import { arabicName, expect, open, registerApi, storedRow, test, uniquePhone } from './support';

// docs/product.md §4: idle, then submitting (button disabled and relabelled), then success or error.

const path = '/register/register-client/premium_reco/1001';
const email = 'sara@example.com';

async function fillValid(page: Page, phone: string) {
  await open(page, path);
  await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
  await page.getByRole('textbox', { name: arForm.fieldEmail }).fill(email);
  await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);
}

async function expectValuesKept(page: Page, phone: string) {
  await expect(page.getByRole('textbox', { name: arForm.fieldName })).toHaveValue(arabicName);
  await expect(page.getByRole('textbox', { name: arForm.fieldEmail })).toHaveValue(email);
  await expect(page.getByRole('textbox', { name: arForm.fieldPhone })).toHaveValue(phone);
}

test('while the request is in flight the button is disabled and relabelled', async ({ page }) => {
  const phone = uniquePhone();
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let sent = 0;
  const requested = page.waitForRequest(registerApi);
  await page.route(registerApi, async (route) => {
    sent += 1;
    await released;
    await route.continue();
  });
  await fillValid(page, phone);
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await requested;

  const pending = page.getByRole('button', { name: arForm.buttonSubmitting });
  await expect(pending).toBeDisabled();
  await expect(page.getByRole('button', { name: arForm.buttonSubmit, exact: true })).toHaveCount(0);
  // A second press while pending sends nothing more.
  await pending.click({ force: true });

  release();
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  await expect(page.getByRole('button', { name: arForm.buttonSubmit, exact: true })).toBeEnabled();
  expect(sent).toBe(1);
  await storedRow(phone);
});

const serverErrors = [
  { status: 400, error: arForm.errorInvalid },
  { status: 400, error: ar.errorBadRequest },
  { status: 429, error: ar.errorTooManyRequests },
];
for (const { status, error } of serverErrors) {
  test(`the server's ${status} error "${error}" is shown and the values kept`, async ({ page }) => {
    const phone = uniquePhone();
    await page.route(registerApi, (route) =>
      route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ error }) }),
    );
    await fillValid(page, phone);
    await page.getByRole('button', { name: arForm.buttonSubmit }).click();
    await expect(page.getByRole('alert')).toHaveText(error);
    await expect(page.getByRole('status')).toHaveText('');
    await expectValuesKept(page, phone);
    await expect(page.getByRole('button', { name: arForm.buttonSubmit })).toBeEnabled();
  });
}

test('an error answer that is not JSON shows the generic error', async ({ page }) => {
  const phone = uniquePhone();
  await page.route(registerApi, (route) =>
    route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad Gateway</h1>' }),
  );
  await fillValid(page, phone);
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('alert')).toHaveText(arForm.errorGeneric);
  await expectValuesKept(page, phone);
});

test('a network failure shows the generic error and keeps the values', async ({ page }) => {
  const phone = uniquePhone();
  await page.route(registerApi, (route) => route.abort('internetdisconnected'));
  await fillValid(page, phone);
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('alert')).toHaveText(arForm.errorGeneric);
  await expectValuesKept(page, phone);

  // The form is not locked: once the network is back, the same values go through.
  await page.unroute(registerApi);
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  await expect(page.getByRole('alert')).toHaveText('');
  await storedRow(phone);
});
