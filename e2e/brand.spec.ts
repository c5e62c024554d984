import { arForm } from '../src/domain/catalogue/form';
import { ar } from '../src/domain/catalogue/shared';
import { sampleBrand } from '../testing/sample-brand';
import { brand, expect, open, openWithoutApp, test, waitForHydration } from './support';

// The provider's header and licence line (playwright.config.ts starts the server with the
// sample brand): in the server's HTML, so in the first paint, and in boxes known before the
// logo or the app arrive, so nothing moves.

const formPath = '/register/register-client/premium_reco/1001';

test('the header and the licence line are in the first paint, before the app', async ({ page }) => {
  const release = await openWithoutApp(page, formPath);
  const banner = page.getByRole('banner');
  await expect(banner).toHaveText(brand);
  await expect(page.getByText(ar.licence(sampleBrand.licence))).toBeVisible();
  release();
  await waitForHydration(page);
  await expect(banner).toHaveText(brand);
});

test('the privacy notice is under the button in the first paint, its link opening a new tab', async ({
  page,
}) => {
  const release = await openWithoutApp(page, formPath);
  const form = page.locator('form');
  const notice = form.getByText(ar.privacyNotice);
  await expect(notice).toBeVisible();
  // Read in order: the button, then the notice, then its link.
  await expect(form.locator('p').last()).toHaveText(`${ar.privacyNotice} ${ar.privacyLink}`);
  const button = await page.getByRole('button', { name: arForm.buttonSubmit }).boundingBox();
  const line = await notice.boundingBox();
  expect(line!.y).toBeGreaterThan(button!.y + button!.height);
  const link = page.getByRole('link', { name: ar.privacyLink });
  await expect(link).toHaveAttribute('href', sampleBrand.privacyUrl);
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', 'noopener');
  release();
  await waitForHydration(page);
  await expect(link).toHaveAttribute('href', sampleBrand.privacyUrl);
});

test('nothing moves while the logo loads and the app hydrates, and the logo is not the LCP', async ({
  page,
}) => {
  // Layout shifts and LCP candidates from the very start, as Lighthouse counts them.
  await page.addInitScript(() => {
    const seen = { shift: 0, lcp: [] as string[] };
    Object.assign(window, { seen });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[]) {
        seen.shift += entry.value;
      }
    }).observe({ type: 'layout-shift', buffered: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { element?: Element })[]) {
        seen.lcp.push(entry.element?.tagName ?? '');
      }
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  });
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/register\/brand-logo-[0-9a-f]+\.svg$/, async (route) => {
    await released;
    await route.continue();
  });
  // Not until 'load', which waits for the logo held back here.
  await page.goto(formPath, { waitUntil: 'domcontentloaded' });
  await waitForHydration(page);
  const logo = page.getByRole('banner').locator('img');
  // Its box, 120x40 in the file, is laid out at 96x32 before a byte of it has come.
  expect(await logo.evaluate((image: HTMLImageElement) => image.complete)).toBe(false);
  const before = await logo.boundingBox();
  expect([before?.width, before?.height]).toEqual([96, 32]);
  const heading = await page.getByRole('heading', { level: 1 }).boundingBox();

  release();
  await expect(logo).toHaveJSProperty('complete', true);
  expect(await logo.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0);
  expect(await logo.boundingBox()).toEqual(before);
  expect(await page.getByRole('heading', { level: 1 }).boundingBox()).toEqual(heading);
  const seen = await page.evaluate(
    () => (window as unknown as { seen: { shift: number; lcp: string[] } }).seen,
  );
  expect(seen.shift).toBe(0);
  expect(seen.lcp.length, 'LCP candidates seen').toBeGreaterThan(0);
  expect(seen.lcp).not.toContain('IMG');
});

test('the not-authorised page carries the header and the licence line too', async ({ page }) => {
  await open(page, '/register/my-registration-link');
  await expect(page.getByText(ar.errorNotAuthorized)).toBeVisible();
  await expect(page.getByRole('banner')).toHaveText(brand);
  await expect(page.getByText(ar.licence(sampleBrand.licence))).toBeVisible();
});

test('the plain 404 text has neither', async ({ page }) => {
  await open(page, '/register/no-such-page');
  await expect(page.getByText(ar.notFound)).toBeVisible();
  await expect(page.getByRole('banner')).toHaveCount(0);
});
