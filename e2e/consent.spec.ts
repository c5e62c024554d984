import type { Page } from '@playwright/test';
import { arForm } from '../src/domain/catalogue/form';
import { ar } from '../src/domain/catalogue/shared';
import { signedUpParameter } from '../src/domain/links';
import { sampleBrand } from '../testing/sample-brand';
import { arabicName, expect, open, storedRow, test, uniquePhone } from './support';

// The consent's evidence (docs/personal-data.md): each submission keeps the privacy notice the
// form linked (the server runs with PRIVACY_URL and PRIVACY_VERSION) and the way it came; the
// page sends the version it showed, with JavaScript or without, so it is attested.

const path = '/register/register-client/premium_reco/m-4001';

/** The notice the person sees under the button, then the form filled and submitted. */
async function signUp(page: Page, phone: string) {
  await expect(page.getByRole('link', { name: ar.privacyLink })).toHaveAttribute(
    'href',
    sampleBrand.privacyUrl,
  );
  await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
  await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
}

const notice = {
  privacy_url: sampleBrand.privacyUrl,
  privacy_version: sampleBrand.privacyVersion,
  // As the export writes it (the rows are read through it).
  privacy_attested: true,
};

test('a sign-up from the page is stored with the notice it showed and the channel api', async ({
  page,
}) => {
  const phone = uniquePhone();
  await open(page, path);
  await signUp(page, phone);
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  expect(await storedRow(phone)).toMatchObject({ ...notice, channel: 'api' });
});

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  test('a sign-up posted by the form is stored with the notice it showed and the channel form', async ({
    page,
  }) => {
    const phone = uniquePhone();
    await page.goto(path);
    await signUp(page, phone);
    await page.waitForURL(`${path}?${signedUpParameter}`);
    await expect(page.getByRole('status')).toHaveText(arForm.success);
    expect(await storedRow(phone)).toMatchObject({ ...notice, channel: 'form' });
  });
});
