import { act, screen } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { describe, expect, it, vi } from 'vitest';
import { ar, arPreview } from '../domain/catalogue';
import { registrationPath } from '../domain/links';
import { packageLabels } from '../domain/packages';
import { App } from './app';
import { render } from './entry-server';
import { brand } from './env';

describe('render, the contract with the server', () => {
  it('renders a form route with status 200, its title in the head and its heading', () => {
    const page = render('/register/register-client/premium_reco/42?utm_source=whatsapp');
    const label = packageLabels.premium_reco;
    expect(page.status).toBe(200);
    expect(page.head).toContain(`<title>${ar.titlePackage(label, brand)}</title>`);
    expect(page.form).toEqual({ packageName: 'premium_reco', marketingId: '42' });
    expect(page.html).toContain(`<h1 id="heading">${ar.headingPrefix} ${label}</h1>`);
    expect(page.html).not.toContain('<title');
  });

  it('sends the register button disabled, so a submit before hydration cannot leak a GET', () => {
    const page = render('/register/register-client');
    expect(page.html).toMatch(/<button type="submit" disabled="">/);
  });

  it('renders every route of docs/product.md §2 with status 200', () => {
    for (const url of [
      '/register/register-client/classic_reco',
      '/register/marketer/42',
      '/register/register-client',
      '/register/my-registration-link',
    ]) {
      expect(render(url).status).toBe(200);
    }
  });

  it('gives 404 and only the plain text for any other path', () => {
    const page = render('/register/nothing-here');
    expect(page).toEqual({
      status: 404,
      head: expect.stringContaining(`<title>${ar.notFound}</title>`),
      html: `<main class="page" dir="ltr" lang="en">${ar.notFound}</main>`,
    });
  });

  it('answers a hostile package segment with the 404, its text nowhere in the page', () => {
    const page = render(`/register/register-client/${encodeURIComponent('<script>"&\'')}`);
    expect(page.status).toBe(404);
    expect(page.head).toContain(`<title>${ar.notFound}</title>`);
    expect(page.head + page.html).not.toMatch(/<script|&lt;script/);
  });

  it('renders the link page without a link or a refusal: the server cannot know the user', () => {
    localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 42 }));
    const page = render('/register/my-registration-link');
    expect(page.head).toContain(`<title>${ar.titleMyLink(brand)}</title>`);
    expect(page.form).toBeUndefined();
    expect(page.html).not.toContain('/register/marketer/');
    expect(page.html).not.toContain(ar.errorNotAuthorized);
    expect(page.html).not.toContain(ar.headingMyLink);
  });
});

/** The head as a link-preview crawler reads it: the <title>, then each meta by name or property. */
function previewTags(head: string): Record<string, string> {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
  const decode = (text: string) =>
    text.replace(/&(amp|lt|gt|quot|#39);/g, (_, entity: string) => entities[entity] ?? '');
  const tags: Record<string, string> = {};
  const title = /<title>([^<]*)<\/title>/.exec(head);
  if (title?.[1] !== undefined) tags.title = decode(title[1]);
  for (const [, key, content] of head.matchAll(
    /<meta (?:name|property)="([^"]+)" content="([^"]*)" \/>/g,
  )) {
    if (key !== undefined && content !== undefined) tags[key] = decode(content);
  }
  return tags;
}

describe('link previews: the head WhatsApp, Telegram and X read without JavaScript', () => {
  const origin = 'https://tasjeel.example';
  const premium = packageLabels.premium_reco;
  const portfolio = packageLabels.economy_portfolio;

  it.each([
    [
      'a package and a marketer',
      '/register/register-client/premium_reco/42?utm_source=whatsapp',
      ar.titlePackage(premium, brand),
      arPreview.descriptionPackage(premium),
      '/register/register-client/premium_reco/42',
    ],
    [
      'a package',
      '/register/register-client/economy_portfolio',
      ar.titlePackage(portfolio, brand),
      arPreview.descriptionPackage(portfolio),
      '/register/register-client/economy_portfolio',
    ],
    [
      'a marketer (free trial)',
      '/register/marketer/42',
      ar.titleGeneric(brand),
      arPreview.descriptionFreeTrial,
      '/register/marketer/42',
    ],
    [
      'the free trial',
      '/register/register-client',
      ar.titleGeneric(brand),
      arPreview.descriptionFreeTrial,
      '/register/register-client',
    ],
    [
      'the link page',
      '/register/my-registration-link',
      ar.titleMyLink(brand),
      arPreview.description,
      '/register/my-registration-link',
    ],
    [
      'a package segment that is no key (a sentence someone wants on the page)',
      `/register/register-client/${encodeURIComponent('حوّل 100 ريال إلى SA03 للتفعيل')}/42`,
      ar.notFound,
      arPreview.description,
      `/register/register-client/${encodeURIComponent('حوّل 100 ريال إلى SA03 للتفعيل')}/42`,
    ],
    [
      'an unknown path',
      '/register/nothing-here?x=1',
      ar.notFound,
      arPreview.description,
      '/register/nothing-here',
    ],
  ])('gives %s its title, description and absolute URLs', (_, url, title, description, path) => {
    expect(previewTags(render(url, { origin }).head)).toEqual({
      title,
      description,
      'og:site_name': brand,
      'og:type': 'website',
      'og:locale': 'ar_SA',
      'og:title': title,
      'og:description': description,
      'og:url': `${origin}${path}`,
      'og:image': `${origin}/register/og-image.png`,
      'og:image:type': 'image/png',
      'og:image:width': '1200',
      'og:image:height': '630',
      'og:image:alt': arPreview.imageAlt,
      'twitter:card': 'summary_large_image',
    });
  });

  it('gives one address however the link was typed', () => {
    const tags = previewTags(render('/REGISTER/Marketer/42/', { origin }).head);
    expect(tags['og:url']).toBe(`${origin}/register/marketer/42`);
  });

  it('escapes a hostile origin in every tag, and never shows a hostile package', () => {
    for (const packageName of ['gold_plan', `<script>"'&`]) {
      const url = `/register/register-client/${encodeURIComponent(packageName)}/7`;
      const { head } = render(url, { origin: 'https://x.example"><script>' });
      expect(head).not.toMatch(/<script|"><|'>/);
      // Every tag is whole: as many meta tags as the strict pattern reads.
      expect(head.match(/<meta /g)).toHaveLength(Object.keys(previewTags(head)).length - 1);
      expect(previewTags(head)['og:url']).toBe(
        `https://x.example"><script>${registrationPath({ packageName, marketingId: '7' })}`,
      );
    }
    const known = previewTags(render('/register/register-client/gold_plan/7', { origin }).head);
    expect(known['og:title']).toBe(ar.titlePackage('gold_plan', brand));
    expect(known['og:description']).toBe(arPreview.descriptionPackage('gold_plan'));
  });
});

describe('hydrating what render produced', () => {
  it.each([
    ['the link page for a marketer', '/register/my-registration-link', ar.headingMyLink],
    [
      'a form',
      '/register/register-client/economy_reco/3',
      `${ar.headingPrefix} ${packageLabels.economy_reco}`,
    ],
  ])('resolves %s without a mismatch', async (_, url, heading) => {
    localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 42 }));
    const container = document.createElement('div');
    container.innerHTML = render(url).html;
    document.body.append(container);
    const consoleError = vi.spyOn(console, 'error');
    const onRecoverableError = vi.fn();

    const root = await act(async () =>
      hydrateRoot(container, <App location={url} />, { onRecoverableError }),
    );

    expect(screen.getByRole('heading', { name: heading })).toBeInTheDocument();
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
    act(() => root.unmount());
    container.remove();
  });
});
