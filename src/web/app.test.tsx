import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { arForm } from '../domain/catalogue/form';
import { arLinkPage } from '../domain/catalogue/link-page';
import { ar } from '../domain/catalogue/shared';
import { packageKeys, packageLabels } from '../domain/packages';
import { App } from './app';
import { defaultBrand } from './brand';
import { renderApp, sampleBrand } from './test-helpers';

const freeTrialHeading = `${arForm.headingPrefix} ${ar.headingFreeTrial}`;

describe('the routes of docs/product.md §2', () => {
  it.each([
    [
      'a package and a marketer',
      '/register/register-client/premium_reco/42',
      `${arForm.headingPrefix} ${packageLabels.premium_reco}`,
      ar.titlePackage(packageLabels.premium_reco, ar.brandDefault),
    ],
    [
      'a package',
      '/register/register-client/economy_portfolio',
      `${arForm.headingPrefix} ${packageLabels.economy_portfolio}`,
      ar.titlePackage(packageLabels.economy_portfolio, ar.brandDefault),
    ],
    ['a marketer', '/register/marketer/42', freeTrialHeading, ar.titleGeneric(ar.brandDefault)],
    ['neither', '/register/register-client', freeTrialHeading, ar.titleGeneric(ar.brandDefault)],
  ])('show the form for %s with its heading and title', (_, path, heading, title) => {
    renderApp(path);
    expect(screen.getByRole('heading', { level: 1, name: heading })).toBeInTheDocument();
    expect(screen.getByRole('form', { name: heading })).toBeInTheDocument();
    expect(document.title).toBe(title);
  });

  it.each(packageKeys)('label the package %s', (key) => {
    renderApp(`/register/register-client/${key}`);
    const heading = `${arForm.headingPrefix} ${packageLabels[key]}`;
    expect(screen.getByRole('heading', { name: heading })).toBeInTheDocument();
    expect(document.title).toBe(ar.titlePackage(packageLabels[key], ar.brandDefault));
  });

  it('show an unknown package key as it came, for a package added later', () => {
    renderApp('/register/register-client/gold_plan/7');
    expect(
      screen.getByRole('heading', { name: `${arForm.headingPrefix} gold_plan` }),
    ).toBeVisible();
    expect(document.title).toBe(ar.titlePackage('gold_plan', ar.brandDefault));
  });

  it.each([
    `${packageLabels.classic_portfolio} x`,
    'لتفعيل الاشتراك حوّل 100 ريال إلى SA0380000000608010167519',
    'gold plan',
    'k'.repeat(41),
  ])('show the 404, not the text, for a package segment that is no key: %s', (segment) => {
    const { container } = renderApp(`/register/register-client/${encodeURIComponent(segment)}/7`);
    expect(container.innerHTML).toBe(
      `<main class="page" dir="ltr" lang="en">${ar.notFound}</main>`,
    );
    expect(document.title).toBe(ar.notFound);
  });

  it('show the link page with its title', async () => {
    localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 1 }));
    renderApp('/register/my-registration-link');
    expect(await screen.findByRole('heading', { name: arLinkPage.heading })).toBeInTheDocument();
    expect(document.title).toBe(ar.titleMyLink(ar.brandDefault));
  });

  it.each([
    '/register/',
    '/register/unknown',
    '/register/marketer',
    '/register/register-client/a/b/c',
    '/register/my-registration-link/more',
  ])('render only the plain 404 text at %s', (path) => {
    const { container } = renderApp(path);
    expect(container.innerHTML).toBe(
      `<main class="page" dir="ltr" lang="en">${ar.notFound}</main>`,
    );
    expect(document.title).toBe(ar.notFound);
  });

  it('mark the document ready once rendered', () => {
    delete document.documentElement.dataset.appReady;
    renderApp('/register/register-client');
    expect(document.documentElement).toHaveAttribute('data-app-ready', 'true');
  });

  it('update the title when the screen changes', () => {
    const { rerender } = render(<App location="/register/register-client" brand={defaultBrand} />);
    expect(document.title).toBe(ar.titleGeneric(ar.brandDefault));
    rerender(<App location="/register/register-client/premium_reco" brand={defaultBrand} />);
    expect(document.title).toBe(ar.titlePackage(packageLabels.premium_reco, ar.brandDefault));
  });
});

describe("the provider's header and licence line", () => {
  const form = '/register/register-client/premium_reco/42';
  const linkPage = '/register/my-registration-link';

  it('is a banner with the logo and the name, which links to the provider’s site', () => {
    renderApp(form, sampleBrand);
    const banner = screen.getByRole('banner');
    const link = within(banner).getByRole('link', { name: sampleBrand.name });
    expect(link).toHaveAttribute('href', sampleBrand.siteUrl);
    // The name beside it says who it is: the logo is left out of what a screen reader reads.
    expect(within(banner).getByRole('presentation')).toHaveAttribute('src', sampleBrand.logo?.src);
    expect(document.title).toBe(ar.titlePackage(packageLabels.premium_reco, sampleBrand.name));
  });

  it('is the default name alone, not a link, when nothing is set', () => {
    renderApp(form);
    const banner = screen.getByRole('banner');
    expect(banner).toHaveTextContent(ar.brandDefault);
    expect(within(banner).queryByRole('link')).not.toBeInTheDocument();
    expect(within(banner).queryByRole('presentation')).not.toBeInTheDocument();
    expect(screen.queryByText(ar.licence('08126-37'))).not.toBeInTheDocument();
  });

  it('keeps a very wide logo narrower than the heading', () => {
    renderApp(form, { name: 'x', logo: { src: '/register/l.png', width: 1200, height: 100 } });
    const logo = within(screen.getByRole('banner')).getByRole('presentation');
    expect(logo).toHaveAttribute('width', '128');
    expect(logo).toHaveAttribute('height', '11');
  });

  it.each([
    ['the form', form, undefined],
    ['the link page', linkPage, JSON.stringify({ role: 'marketing', id: 7 })],
    ['the not-authorised page', linkPage, undefined],
  ])('shows the licence line under the card on %s', async (_, path, user) => {
    if (user !== undefined) localStorage.setItem('user', user);
    renderApp(path, sampleBrand);
    expect(screen.getByRole('banner')).toHaveTextContent(sampleBrand.name);
    // The link page's card comes with its own chunk.
    const line = await within(screen.getByRole('main')).findByText(ar.licence('08126-37'));
    expect(line.previousElementSibling).toHaveClass('card');
  });

  it('is not on the plain 404 text', () => {
    renderApp('/register/nothing-here', sampleBrand);
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
    expect(screen.queryByText(ar.licence('08126-37'))).not.toBeInTheDocument();
  });
});
