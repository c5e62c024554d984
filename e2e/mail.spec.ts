import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { arMail } from '../src/domain/catalogue/mail';
import { arStats } from '../src/domain/catalogue/marketer-stats';
import { sampleBrand } from '../testing/sample-brand';
import {
  sampleConfirmation,
  sampleMailBrand,
  sampleMails,
  sampleTeamLeaderWeek,
} from '../testing/sample-mails';
import { axe, contrastRatio, expect, test } from './support';

// The e-mails' HTML as a mail client shows it: each sample (testing/sample-mails.ts) composed as
// the server composes it and set as the page's content, on a 320 px phone (project phone) and a
// desktop, light and dark. The server is not involved: an e-mail is read away from the pages.

const logo = readFileSync(sampleBrand.logo);

async function show(page: Page, html: string, phone: boolean) {
  if (phone) await page.setViewportSize({ width: 320, height: 640 });
  // The logo's address is on PUBLIC_URL, which this test has none of: the sample's file instead.
  await page.route(sampleMailBrand.logoUrl ?? '', (route) =>
    route.fulfill({ body: logo, contentType: 'image/svg+xml' }),
  );
  await page.setContent(html, { waitUntil: 'load' });
}

// The texts whose contrast axe does not measure (it takes joined Arabic letters for an icon
// font's ligature): the body text, the muted lines, the links and the button.
const texts = ['h1', 'th >> nth=0', '.mail-muted >> nth=0', '.mail-link >> nth=0'];

for (const [name, compose] of Object.entries(sampleMails)) {
  test(`the ${name} e-mail reads right to left, fits the screen, light and dark, axe 0`, async ({
    page,
  }, testInfo) => {
    const phone = testInfo.project.name === 'phone';
    const mail = await compose();
    await show(page, mail.html, phone);

    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
    await expect(page).toHaveTitle(mail.subject);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByText(sampleMailBrand.name, { exact: true })).toBeVisible();
    await expect(page.locator('img')).toHaveJSProperty('naturalWidth', 120);
    // Nothing wider than the screen: no sideways scrolling, on a 320 px phone either.
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    // One column no wider than 600 px on the desktop.
    const card = await page.locator('.mail-card').boundingBox();
    expect(card?.width).toBeLessThanOrEqual(phone ? 320 : 600);

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await axe(page, `${name} e-mail (${scheme})`, testInfo.project.name)).toEqual([]);
      for (const selector of texts) {
        if ((await page.locator(selector).count()) === 0) continue;
        expect(await contrastRatio(page, selector), `${selector} (${scheme})`).toBeGreaterThan(4.5);
      }
      const button = page.locator('.mail-button span >> nth=1');
      if ((await button.count()) > 0) {
        expect(await contrastRatio(page, '.mail-button span >> nth=1')).toBeGreaterThan(4.5);
      }
    }
    // Dark mode repaints the card.
    const background = await page.locator('.mail-card').evaluate((card) => {
      return getComputedStyle(card).backgroundColor;
    });
    expect(background).not.toBe('rgb(255, 255, 255)');
  });
}

test("the confirmation's first link confirms, and says so", async ({ page }, testInfo) => {
  const mail = await sampleMails.confirmation();
  await show(page, mail.html, testInfo.project.name === 'phone');
  const first = page.getByRole('link').first();
  await expect(first).toHaveAccessibleName(arMail.confirmationButton);
  await expect(first).toHaveAttribute('href', sampleConfirmation.confirmUrl);
  await expect(page.getByRole('link', { name: arMail.confirmationWithdraw })).toHaveAttribute(
    'href',
    sampleConfirmation.unsubscribeUrl,
  );
});

test("a team leader's summary has a table of the members, by name and id", async ({
  page,
}, testInfo) => {
  const mail = await sampleMails['team-leader-week']();
  await show(page, mail.html, testInfo.project.name === 'phone');
  const members = page.getByRole('table', { name: arMail.teamMembersWeek });
  await expect(members.getByRole('rowheader')).toHaveText(
    (sampleTeamLeaderWeek.team?.members ?? []).map((member) =>
      member.name === null ? member.marketing_id : arStats.named(member.name, member.marketing_id),
    ),
  );
  await expect(members.getByRole('columnheader').first()).toHaveText(arStats.teamMember);
  await expect(page.getByRole('table', { name: arMail.teamNumbers })).toBeVisible();
});
