import { arForm } from '../src/domain/catalogue/form';
import { signedUpParameter } from '../src/domain/links';
import {
  arabicName,
  expect,
  open,
  openWithoutApp,
  recordPosts,
  storedRow,
  test,
  uniquePhone,
  waitForHydration,
} from './support';

// The server's HTML is on screen before React runs (the app loads after the first paint), and
// a visitor on a slow phone may start typing, and submit, at once.

const path = '/register/register-client/economy_reco/1003';

test('no script is requested before the first paint, the app and what it imports alike', async ({
  page,
}) => {
  await open(page, path);
  const { paint, scripts } = await page.evaluate(() => ({
    paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
    scripts: performance
      .getEntriesByType('resource')
      .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
      .map((entry) => ({ url: entry.name, start: entry.startTime })),
  }));
  expect(paint).toBeDefined();
  expect(scripts.length).toBeGreaterThan(0);
  for (const script of scripts) {
    expect(script.start, `${script.url} after the paint`).toBeGreaterThanOrEqual(paint!);
  }
});

test('what sending needs is fetched at the first input, not with the app', async ({ page }) => {
  const phone = uniquePhone();
  await open(page, path);
  const scripts = () =>
    page.evaluate(
      () =>
        performance
          .getEntriesByType('resource')
          .filter((entry) => new URL(entry.name).pathname.endsWith('.js')).length,
    );
  const withApp = await scripts();
  await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
  await expect.poll(scripts).toBeGreaterThan(withApp);

  await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  expect((await storedRow(phone)).name).toBe(arabicName);
});

test('what is typed before the app wakes up is kept and sent by the app', async ({ page }) => {
  const phone = uniquePhone();
  const release = await openWithoutApp(page, path);
  await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
  await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);

  release();
  await waitForHydration(page);
  const submit = page.getByRole('button', { name: arForm.buttonSubmit });
  await expect(page.getByRole('textbox', { name: arForm.fieldName })).toHaveValue(arabicName);
  await submit.click();
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  expect((await storedRow(phone)).name).toBe(arabicName);
});

test('a submit before the app has loaded is posted by the browser and stored once', async ({
  page,
}) => {
  const { posts, settle } = recordPosts(page);
  const phone = uniquePhone();
  const release = await openWithoutApp(page, path);
  await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
  await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);

  const submit = page.getByRole('button', { name: arForm.buttonSubmit });
  await expect(submit).toBeEnabled();
  await page.getByRole('textbox', { name: arForm.fieldPhone }).press('Enter');
  // Not until 'load' (openWithoutApp): on a busy machine, the page it lands on may be painted
  // before its load event, which then waits for the held script, that is for release().
  await page.waitForURL(`${path}?${signedUpParameter}`, { waitUntil: 'commit' });
  await expect(page.getByRole('status')).toHaveText(arForm.success);

  // The app takes over the page it was sent to: the success line stays, the mark leaves the
  // address, and nothing is posted again.
  release();
  await waitForHydration(page);
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  await expect(page).toHaveURL(path);
  await page.reload();
  await waitForHydration(page);
  await settle();
  expect(posts, 'no post to the API').toHaveLength(0);
  expect((await storedRow(phone)).name).toBe(arabicName);
});
