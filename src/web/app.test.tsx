import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ar } from '../domain/catalogue';
import { packageKeys, packageLabels } from '../domain/packages';
import { App } from './app';
import { brand } from './env';
import { renderApp } from './test-helpers';

const freeTrialHeading = `${ar.headingPrefix} ${ar.headingFreeTrial}`;

describe('the routes of docs/product.md §2', () => {
  it.each([
    [
      'a package and a marketer',
      '/register/register-client/premium_reco/42',
      `${ar.headingPrefix} ${packageLabels.premium_reco}`,
      ar.titlePackage(packageLabels.premium_reco, brand),
    ],
    [
      'a package',
      '/register/register-client/economy_portfolio',
      `${ar.headingPrefix} ${packageLabels.economy_portfolio}`,
      ar.titlePackage(packageLabels.economy_portfolio, brand),
    ],
    ['a marketer', '/register/marketer/42', freeTrialHeading, ar.titleGeneric(brand)],
    ['neither', '/register/register-client', freeTrialHeading, ar.titleGeneric(brand)],
  ])('show the form for %s with its heading and title', (_, path, heading, title) => {
    renderApp(path);
    expect(screen.getByRole('heading', { level: 1, name: heading })).toBeInTheDocument();
    expect(screen.getByRole('form', { name: heading })).toBeInTheDocument();
    expect(document.title).toBe(title);
  });

  it.each(packageKeys)('label the package %s', (key) => {
    renderApp(`/register/register-client/${key}`);
    const heading = `${ar.headingPrefix} ${packageLabels[key]}`;
    expect(screen.getByRole('heading', { name: heading })).toBeInTheDocument();
    expect(document.title).toBe(ar.titlePackage(packageLabels[key], brand));
  });

  it('show an unknown package key as it came, for a package added later', () => {
    renderApp('/register/register-client/gold_plan/7');
    expect(screen.getByRole('heading', { name: `${ar.headingPrefix} gold_plan` })).toBeVisible();
    expect(document.title).toBe(ar.titlePackage('gold_plan', brand));
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

  it('show the link page with its title', () => {
    localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 1 }));
    renderApp('/register/my-registration-link');
    expect(screen.getByRole('heading', { name: ar.headingMyLink })).toBeInTheDocument();
    expect(document.title).toBe(ar.titleMyLink(brand));
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
    const { rerender } = render(<App location="/register/register-client" />);
    expect(document.title).toBe(ar.titleGeneric(brand));
    rerender(<App location="/register/register-client/premium_reco" />);
    expect(document.title).toBe(ar.titlePackage(packageLabels.premium_reco, brand));
  });
});
