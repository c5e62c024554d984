import type { Page } from '@playwright/test';
import { arForm } from '../src/domain/catalogue/form';
import { arLinkPage } from '../src/domain/catalogue/link-page';
import { arNotifications } from '../src/domain/catalogue/notifications';
import { ar } from '../src/domain/catalogue/shared';
import {
  arabicName,
  axe,
  contrastRatio,
  expect,
  open,
  registerApi,
  test,
  uniquePhone,
} from './support';

// axe-core at WCAG 2.2 AA (wcag2a, wcag2aa, wcag21a, wcag21aa, wcag22aa) on every screen and
// state, with 0 violations. The 404 is checked like the rest: it is plain text on purpose
// (docs/product.md §8), and the rules that would ask for a heading or landmarks are axe best practices,
// not WCAG criteria, so they are outside these tags.

const formPath = '/register/register-client/premium_reco/1001';

async function fill(page: Page, phone: string) {
  await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
  await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);
}

const screens: { screen: string; reach: (page: Page) => Promise<void> }[] = [
  {
    screen: 'form, package and marketer, empty',
    reach: async (page) => {
      await open(page, formPath);
    },
  },
  {
    screen: 'form, free trial, empty',
    reach: async (page) => {
      await open(page, '/register/register-client');
    },
  },
  {
    screen: 'form, validation error',
    reach: async (page) => {
      await open(page, formPath);
      await fill(page, '96651');
      await page.getByRole('button', { name: arForm.buttonSubmit }).click();
      await expect(page.getByRole('alert')).toHaveText(arForm.errorInvalid);
    },
  },
  {
    screen: 'form, server error',
    reach: async (page) => {
      await page.route(registerApi, (route) =>
        route.fulfill({ status: 429, json: { error: ar.errorTooManyRequests } }),
      );
      await open(page, formPath);
      await fill(page, uniquePhone());
      await page.getByRole('button', { name: arForm.buttonSubmit }).click();
      await expect(page.getByRole('alert')).toHaveText(ar.errorTooManyRequests);
    },
  },
  {
    screen: 'form, submitting',
    reach: async (page) => {
      // Never answered: the page stays in its pending state while axe runs.
      await page.route(registerApi, () => {});
      await open(page, formPath);
      await fill(page, uniquePhone());
      await page.getByRole('button', { name: arForm.buttonSubmit }).click();
      await expect(page.getByRole('button', { name: arForm.buttonSubmitting })).toBeDisabled();
    },
  },
  {
    screen: 'form, success',
    reach: async (page) => {
      await open(page, formPath);
      await fill(page, uniquePhone());
      await page.getByRole('button', { name: arForm.buttonSubmit }).click();
      await expect(page.getByRole('status')).toHaveText(arForm.success);
    },
  },
  {
    screen: 'link page',
    reach: async (page) => {
      await page.addInitScript(() => localStorage.setItem('user', '{"role":"marketing","id":42}'));
      await open(page, '/register/my-registration-link');
      await expect(page.getByRole('button', { name: arLinkPage.buttonCopy })).toBeVisible();
    },
  },
  {
    screen: 'link page, not authorised',
    reach: async (page) => {
      await open(page, '/register/my-registration-link');
      await expect(page.getByText(ar.errorNotAuthorized)).toBeVisible();
    },
  },
  {
    screen: "an e-mail's confirmation page, opened",
    reach: async (page) => {
      await open(page, '/register/notifications/confirm/axe-token');
      await expect(page.getByRole('button', { name: arNotifications.confirmButton })).toBeVisible();
    },
  },
  {
    screen: "an e-mail's unsubscribe page, opened",
    reach: async (page) => {
      await open(page, '/register/notifications/stop/client/axe-token');
      await expect(
        page.getByRole('button', { name: arNotifications.stop.client.button }),
      ).toBeVisible();
    },
  },
  {
    screen: '404',
    reach: async (page) => {
      await open(page, '/register/no-such-page');
      await expect(page.getByText(ar.notFound)).toBeVisible();
    },
  },
];

for (const { screen, reach } of screens) {
  test(`axe: ${screen} has no WCAG 2.2 AA violation`, async ({ page }, testInfo) => {
    await reach(page);
    expect(await axe(page, screen, testInfo.project.name)).toEqual([]);
  });
}

test("the provider's name and the licence line have at least 4.5:1 contrast", async ({
  page,
}, testInfo) => {
  await open(page, formPath);
  const name = await contrastRatio(page, '.brand-name');
  const licence = await contrastRatio(page, '.licence');
  console.log(
    `contrast [${testInfo.project.name}]: provider's name ${name.toFixed(2)}:1, ` +
      `licence line ${licence.toFixed(2)}:1`,
  );
  expect(name).toBeGreaterThanOrEqual(4.5);
  expect(licence).toBeGreaterThanOrEqual(4.5);
});

test('the red error line and the green success line have at least 4.5:1 contrast', async ({
  page,
}, testInfo) => {
  await open(page, formPath);
  await fill(page, '96651');
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('alert')).toHaveText(arForm.errorInvalid);
  const error = await contrastRatio(page, '[role="alert"]');

  await fill(page, uniquePhone());
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  const success = await contrastRatio(page, '[role="status"]');

  console.log(
    `contrast [${testInfo.project.name}]: error line ${error.toFixed(2)}:1, ` +
      `success line ${success.toFixed(2)}:1`,
  );
  expect(error).toBeGreaterThanOrEqual(4.5);
  expect(success).toBeGreaterThanOrEqual(4.5);
});
