import type { Page } from '@playwright/test';
import { arLinkPage } from '../src/domain/catalogue/link-page';
import { arNotifications } from '../src/domain/catalogue/notifications';
import { arProgram } from '../src/domain/catalogue/program';
import type { Notifications } from '../src/domain/notifications';
import { marketerToken } from '../testing/marketer-auth';
import { axe, expect, open, test } from './support';

// Issue 49: the e-mails a person asks for, on the link page and the programme's page. This
// server sends none (no SMTP_URL): its API answers 204 and the section is absent; the API's
// answers are the browser's own here (its server tests are in src/server), to see the section
// drawn, used from the keyboard and checked by axe.

const api = '**/api/notifications';
const section = (page: Page) => page.getByRole('region', { name: arNotifications.heading });

const marketer: Notifications = {
  email: 'sara@example.com',
  confirmed: false,
  confirmation_sent: false,
  offered: ['weekly_summary', 'client_alerts'],
  weekly_summary: false,
  client_alerts: false,
  review_digest: false,
};

async function signIn(page: Page, user: string | null, token: string) {
  await page.addInitScript(
    ([stored, platformToken]) => {
      if (stored !== null) localStorage.setItem('user', stored);
      localStorage.setItem('token', platformToken);
    },
    [user, token] as const,
  );
}

test('without e-mails on the server (204), the link page has no e-mails section', async ({
  page,
}) => {
  await signIn(page, JSON.stringify({ role: 'marketing', id: 4901 }), await marketerToken('4901'));
  const asked = page.waitForResponse((response) => response.url().endsWith('/api/notifications'));
  await open(page, '/register/my-registration-link');
  expect((await asked).status()).toBe(204);
  await expect(page.getByRole('heading', { name: arLinkPage.heading })).toBeVisible();
  await expect(section(page)).toHaveCount(0);
});

test('a marketer asks for the weekly summary from the keyboard: told a confirmation was sent, axe 0', async ({
  page,
}, testInfo) => {
  const bodies: unknown[] = [];
  await page.route(api, (route) => {
    if (route.request().method() === 'PUT') {
      bodies.push(route.request().postDataJSON());
      return route.fulfill({
        json: { ...marketer, weekly_summary: true, confirmation_sent: true },
      });
    }
    return route.fulfill({ json: marketer });
  });
  await signIn(page, JSON.stringify({ role: 'marketing', id: 4902 }), await marketerToken('4902'));
  await open(page, '/register/my-registration-link');
  const shown = section(page);
  const weekly = shown.getByRole('checkbox', { name: arNotifications.choices.weekly_summary });
  await expect(shown.getByRole('textbox', { name: arNotifications.fieldEmail })).toHaveValue(
    'sara@example.com',
  );
  await weekly.focus();
  await page.keyboard.press('Space');
  await expect(weekly).toBeChecked();
  await shown.getByRole('button', { name: arNotifications.buttonSave }).press('Enter');

  await expect(shown.getByRole('status')).toHaveText(
    arNotifications.confirmationSent('sara@example.com'),
  );
  expect(bodies).toEqual([{ weekly_summary: true }]);
  expect(await axe(page, 'link page, e-mails asked', testInfo.project.name)).toEqual([]);
});

test("the programme's page offers a role the weekly summary and the review note, axe 0", async ({
  page,
}, testInfo) => {
  await page.route(api, (route) =>
    route.fulfill({
      json: {
        ...marketer,
        confirmed: true,
        offered: ['weekly_summary', 'review_digest'],
        review_digest: true,
      },
    }),
  );
  await signIn(page, null, await marketerToken('manager-49', 'admin'));
  await open(page, '/register/program');
  await expect(page.getByRole('heading', { name: arProgram.heading })).toBeVisible();
  const shown = section(page);
  await expect(
    shown.getByRole('checkbox', { name: arNotifications.choices.review_digest }),
  ).toBeChecked();
  await expect(shown.getByRole('checkbox')).toHaveCount(2);
  await expect(shown.getByRole('status')).toHaveText(arNotifications.sendingTo('sara@example.com'));
  expect(await axe(page, "programme's page, e-mails section", testInfo.project.name)).toEqual([]);
});
