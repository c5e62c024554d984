import { arForm } from '../src/domain/catalogue/form';
import { arLinkPage } from '../src/domain/catalogue/link-page';
import { ar } from '../src/domain/catalogue/shared';
import { packageLabels } from '../src/domain/packages';
import { brand, expect, open, test } from './support';

// docs/product.md §2: every route, its heading and its page title, as the server renders and React keeps it.
const formRoutes = [
  {
    path: '/register/register-client/premium_reco/1001',
    heading: `${arForm.headingPrefix} ${packageLabels.premium_reco}`,
    title: ar.titlePackage(packageLabels.premium_reco, brand),
  },
  {
    path: '/register/register-client/classic_portfolio',
    heading: `${arForm.headingPrefix} ${packageLabels.classic_portfolio}`,
    title: ar.titlePackage(packageLabels.classic_portfolio, brand),
  },
  {
    path: '/register/marketer/2002',
    heading: `${arForm.headingPrefix} ${ar.headingFreeTrial}`,
    title: ar.titleGeneric(brand),
  },
  {
    path: '/register/register-client',
    heading: `${arForm.headingPrefix} ${ar.headingFreeTrial}`,
    title: ar.titleGeneric(brand),
  },
  {
    // An unknown package is shown as it came in the route.
    path: '/register/register-client/gold_plus',
    heading: `${arForm.headingPrefix} gold_plus`,
    title: ar.titlePackage('gold_plus', brand),
  },
];

for (const route of formRoutes) {
  test(`${route.path} shows the form with its heading and title`, async ({ page }) => {
    const response = await open(page, route.path);
    expect(response?.status()).toBe(200);
    await expect(page).toHaveTitle(route.title);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(route.heading);
    await expect(page.getByRole('textbox', { name: arForm.fieldName })).toBeVisible();
    await expect(page.getByRole('textbox', { name: arForm.fieldEmail })).toHaveAttribute(
      'type',
      'email',
    );
    const phone = page.getByRole('textbox', { name: arForm.fieldPhone });
    await expect(phone).toHaveAttribute('placeholder', arForm.fieldPhonePlaceholder);
    await expect(phone).toHaveAttribute('maxlength', '12');
    await expect(page.getByRole('button', { name: arForm.buttonSubmit })).toBeEnabled();
    await expect(page.getByRole('link', { name: arForm.buttonBack })).toHaveAttribute('href', '/');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
  });
}

test('/register/my-registration-link has its heading and title for a marketer', async ({
  page,
}) => {
  await page.addInitScript(() => localStorage.setItem('user', '{"role":"marketing","id":7}'));
  await open(page, '/register/my-registration-link');
  await expect(page).toHaveTitle(ar.titleMyLink(brand));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(arLinkPage.heading);
});

for (const path of ['/register/no-such-page', '/register/register-client/a/b/c', '/register']) {
  test(`${path} answers 404 with the plain not-found text`, async ({ page }) => {
    const response = await open(page, path);
    expect(response?.status()).toBe(404);
    await expect(page).toHaveTitle(ar.notFound);
    await expect(page.locator('#root')).toHaveText(ar.notFound);
    await expect(page.getByRole('heading')).toHaveCount(0);
    // English inside an Arabic page: shown left-to-right, so it reads '404 - …' as written.
    const text = page.getByText(ar.notFound);
    await expect(text).toHaveAttribute('lang', 'en');
    await expect(text).toHaveCSS('direction', 'ltr');
  });
}

test("'back to the site' goes to '/', which lands on the free-trial form", async ({
  page,
  baseURL,
}) => {
  await open(page, '/register/register-client/premium_reco/1001');
  const toRoot = page.waitForRequest((request) => request.url() === `${baseURL}/`);
  await page.getByRole('link', { name: arForm.buttonBack }).click();
  await toRoot;
  // Without SITE_URL the server sends '/' to the form with no package.
  await expect(page).toHaveURL(`${baseURL}/register/register-client`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(
    `${arForm.headingPrefix} ${ar.headingFreeTrial}`,
  );
});
