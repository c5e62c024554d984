import { ar } from '../src/domain/catalogue';
import { arabicName, expect, storedRow, test, uniquePhone, waitForHydration } from './support';

// The server's HTML is on screen before React runs (the app loads after the first paint), and
// a visitor on a slow phone may start typing at once.

const path = '/register/register-client/economy_reco/1003';

test('what is typed before the app wakes up is kept and sent, never as a GET', async ({ page }) => {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  // Hold back the app's scripts until the fields are filled.
  await page.route(/\/register\/assets\/.*\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  const phone = uniquePhone();
  await page.goto(path);
  await page.getByRole('textbox', { name: ar.fieldName }).fill(arabicName);
  await page.getByRole('textbox', { name: ar.fieldPhone }).fill(phone);

  const submit = page.getByRole('button', { name: ar.buttonSubmit });
  await expect(submit).toBeDisabled();
  await page.getByRole('textbox', { name: ar.fieldPhone }).press('Enter');
  expect(new URL(page.url()).search, 'no GET with the name and phone in the address').toBe('');

  release();
  await waitForHydration(page);
  await expect(submit).toBeEnabled();
  await expect(page.getByRole('textbox', { name: ar.fieldName })).toHaveValue(arabicName);
  await submit.click();
  await expect(page.getByRole('status')).toHaveText(ar.success);
  expect((await storedRow(phone)).name).toBe(arabicName);
});
