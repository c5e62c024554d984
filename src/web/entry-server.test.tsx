import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { hydrateRoot } from 'react-dom/client';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { arForm } from '../domain/catalogue/form';
import { arLinkPage } from '../domain/catalogue/link-page';
import { arPreview } from '../domain/catalogue/preview';
import { ar } from '../domain/catalogue/shared';
import { formStampField, privacyVersionField } from '../domain/form-fields';
import { registrationPath } from '../domain/links';
import { packageLabels } from '../domain/packages';
import type { FormState } from '../domain/render-contract';
import { App } from './app';
import { defaultBrand, readBrand } from './brand';
import { render } from './entry-server';
import { sampleBrand } from './test-helpers';

describe('render, the contract with the server', () => {
  it('renders a form route with its title in the head and its heading', () => {
    const page = render('/register/register-client/premium_reco/42?utm_source=whatsapp');
    const label = packageLabels.premium_reco;
    expect(page.head).toContain(`<title>${ar.titlePackage(label, ar.brandDefault)}</title>`);
    expect(page.html).toContain(
      `<h1 id="heading">${arForm.headingPrefix}<!-- --> <span class="heading-label">${label}</span></h1>`,
    );
    expect(page.html).not.toContain('<title');
  });

  it('sends a form that works before the app loads: posted to its own page, the button enabled', () => {
    const page = render('/register/register-client');
    expect(page.html).toMatch(/<form [^>]*method="post"/);
    expect(page.html).not.toMatch(/<form [^>]*action=/);
    expect(page.html).toMatch(/<button type="submit">/);
  });

  it('renders every route of docs/product.md §2 as its screen, not the 404 text', () => {
    for (const url of [
      '/register/register-client/classic_reco',
      '/register/marketer/42',
      '/register/register-client',
      '/register/my-registration-link',
    ]) {
      const page = render(url);
      expect(page.head + page.html).not.toContain(ar.notFound);
    }
  });

  it('gives only the plain 404 text for any other path', () => {
    const page = render('/register/nothing-here');
    expect(page).toEqual({
      head: expect.stringContaining(`<title>${ar.notFound}</title>`),
      html: `<main class="page" dir="ltr" lang="en">${ar.notFound}</main>`,
    });
  });

  it('answers a hostile package segment with the 404, its text nowhere in the page', () => {
    const page = render(`/register/register-client/${encodeURIComponent('<script>"&\'')}`);
    expect(page.head).toContain(`<title>${ar.notFound}</title>`);
    expect(page.head + page.html).not.toMatch(/<script|&lt;script/);
  });

  it('renders the link page without a link or a refusal: the server cannot know the user', () => {
    localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 42 }));
    const page = render('/register/my-registration-link');
    expect(page.head).toContain(`<title>${ar.titleMyLink(ar.brandDefault)}</title>`);
    expect(page.html).not.toContain('/register/marketer/');
    expect(page.html).not.toContain(ar.errorNotAuthorized);
    expect(page.html).not.toContain(arLinkPage.heading);
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
      ar.titlePackage(premium, ar.brandDefault),
      arPreview.descriptionPackage(premium),
      '/register/register-client/premium_reco/42',
    ],
    [
      'a package',
      '/register/register-client/economy_portfolio',
      ar.titlePackage(portfolio, ar.brandDefault),
      arPreview.descriptionPackage(portfolio),
      '/register/register-client/economy_portfolio',
    ],
    [
      'a marketer (free trial)',
      '/register/marketer/42',
      ar.titleGeneric(ar.brandDefault),
      arPreview.descriptionFreeTrial,
      '/register/marketer/42',
    ],
    [
      'the free trial',
      '/register/register-client',
      ar.titleGeneric(ar.brandDefault),
      arPreview.descriptionFreeTrial,
      '/register/register-client',
    ],
    [
      'the link page',
      '/register/my-registration-link',
      ar.titleMyLink(ar.brandDefault),
      arPreview.description,
      '/register/my-registration-link',
    ],
  ])('gives %s its title, description and absolute URLs', (_, url, title, description, path) => {
    expect(previewTags(render(url, { origin, brand: defaultBrand }).head)).toEqual({
      title,
      description,
      'og:site_name': ar.brandDefault,
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
      brand: JSON.stringify(defaultBrand),
    });
  });

  it.each([
    [
      'a package segment that is no key (a sentence someone wants on the page)',
      `/register/register-client/${encodeURIComponent('حوّل 100 ريال إلى SA03 للتفعيل')}/42`,
    ],
    ['an unknown path', '/register/nothing-here?x=1'],
  ])('gives %s, a 404, no preview tags: nothing of its address', (_, url) => {
    const { head } = render(url, { origin, brand: defaultBrand });
    expect(previewTags(head)).toEqual({
      title: ar.notFound,
      description: arPreview.description,
      brand: JSON.stringify(defaultBrand),
    });
    expect(head).not.toContain('og:');
    expect(head).not.toContain('nothing-here');
  });

  it('gives one address however the link was typed', () => {
    const tags = previewTags(
      render('/REGISTER/Marketer/42/', { origin, brand: defaultBrand }).head,
    );
    expect(tags['og:url']).toBe(`${origin}/register/marketer/42`);
  });

  it('previews a link tagged with a campaign as the link itself', () => {
    const tagged = '/register/marketer/42?utm_source=whatsapp&utm_medium=referral';
    expect(previewTags(render(tagged, { origin, brand: defaultBrand }).head)).toEqual(
      previewTags(render('/register/marketer/42', { origin, brand: defaultBrand }).head),
    );
  });

  it('escapes a hostile origin in every tag, and never shows a hostile package', () => {
    for (const packageName of ['gold_plan', `<script>"'&`]) {
      const url = `/register/register-client/${encodeURIComponent(packageName)}/7`;
      const { head } = render(url, { origin: 'https://x.example"><script>', brand: defaultBrand });
      expect(head).not.toMatch(/<script|"><|'>/);
      // Every tag is whole: as many meta tags as the strict pattern reads.
      expect(head.match(/<meta /g)).toHaveLength(Object.keys(previewTags(head)).length - 1);
      // A hostile package is the 404, which has no preview address at all.
      expect(previewTags(head)['og:url']).toBe(
        packageName === 'gold_plan'
          ? `https://x.example"><script>${registrationPath({ packageName, marketingId: '7' })}`
          : undefined,
      );
    }
  });

  it('previews a package key the catalogue does not know as the free trial, shown on the page', () => {
    const url = '/register/register-client/call_me_now/42';
    const page = render(url, { origin, brand: defaultBrand });
    const tags = previewTags(page.head);
    expect(tags.title).toBe(ar.titlePackage('call_me_now', ar.brandDefault));
    expect(tags['og:title']).toBe(ar.titleGeneric(ar.brandDefault));
    expect(tags['og:description']).toBe(arPreview.descriptionFreeTrial);
    expect(tags.description).toBe(arPreview.descriptionFreeTrial);
    expect(page.html).toContain('call_me_now');
  });
});

describe('the provider, set at start (BRAND_NAME, BRAND_LOGO, BRAND_LICENCE, SITE_URL)', () => {
  const origin = 'https://tasjeel.example';
  const form = '/register/register-client/premium_reco/42';
  const premium = packageLabels.premium_reco;
  const escaped = 'شركة المثال &amp; شركاه المالية';

  it('names the default provider, with no logo, link or licence line, when none is set', () => {
    const page = render(form, { origin, brand: defaultBrand });
    expect(page.head).toContain(`<title>${ar.titlePackage(premium, ar.brandDefault)}</title>`);
    expect(previewTags(page.head)['og:site_name']).toBe(ar.brandDefault);
    expect(page.html).toContain(
      `<header class="brand"><span class="brand-link"><span class="brand-name">${ar.brandDefault}</span></span></header>`,
    );
    expect(page.html).not.toMatch(/<img|class="licence"/);
  });

  it('puts the name in the titles, the previews and the header, escaped', () => {
    const page = render(form, { origin, brand: { name: sampleBrand.name } });
    expect(page.head).toContain(`<title>${ar.titlePackage(premium, escaped)}</title>`);
    expect(previewTags(page.head)['og:site_name']).toBe(sampleBrand.name);
    expect(previewTags(page.head)['og:title']).toBe(ar.titlePackage(premium, sampleBrand.name));
    expect(page.html).toContain(`<span class="brand-name">${escaped}</span>`);
    expect(
      previewTags(render('/register/my-registration-link', { origin, brand: sampleBrand }).head)
        .title,
    ).toBe(ar.titleMyLink(sampleBrand.name));
  });

  it('draws the logo in a box of its own proportions, 32 px high, before it loads', () => {
    const { html } = render(form, { origin, brand: { name: 'x', logo: sampleBrand.logo } });
    expect(html).toContain(
      '<img class="brand-logo" src="/register/brand-logo-0123456789ab.svg" alt="" width="96" height="32" decoding="async"/>',
    );
  });

  it('links the name to SITE_URL when set', () => {
    const { html } = render(form, { origin, brand: { name: 'x', siteUrl: sampleBrand.siteUrl } });
    expect(html).toContain('<a class="brand-link" href="https://provider.example/">');
  });

  it('adds the licence line under the card when BRAND_LICENCE is set', () => {
    const { html } = render(form, { origin, brand: { name: 'x', licence: '08126-37' } });
    expect(html).toMatch(
      new RegExp(`</form><p class="licence">${ar.licence('08126-37')}</p></main>$`),
    );
  });

  it('adds the privacy notice under the button when PRIVACY_URL is set, with its version for the form to post', () => {
    const privacyUrl = 'https://provider.example/privacy?a=1&b=2';
    const notice = `</div><p class="privacy">${ar.privacyNotice} <a href="https://provider.example/privacy\\?a=1&amp;b=2" target="_blank" rel="noopener">${ar.privacyLink}</a>`;
    const { html } = render(form, {
      origin,
      brand: { name: 'x', privacyUrl, privacyVersion: '2026-11 "b"' },
    });
    expect(html).toMatch(
      new RegExp(
        `${notice}<input type="hidden" name="${privacyVersionField}" value="2026-11 &quot;b&quot;"/></p></form>`,
      ),
    );
    // A notice without a version: the form posts an empty one, the notice it showed.
    expect(render(form, { origin, brand: { name: 'x', privacyUrl } }).html).toMatch(
      new RegExp(
        `${notice}<input type="hidden" name="${privacyVersionField}" value=""/></p></form>`,
      ),
    );
    const none = render(form, { origin, brand: { name: 'x' } }).html;
    expect(none).not.toContain('class="privacy"');
    expect(none).not.toContain(privacyVersionField);
  });

  it('draws the header on the link page, whose card and licence line come on the client', () => {
    const { html } = render('/register/my-registration-link', { origin, brand: sampleBrand });
    expect(html).toContain(`<span class="brand-name">${escaped}</span>`);
    expect(html).not.toContain('class="licence"');
  });

  it('leaves the plain 404 text alone', () => {
    const { html } = render('/register/nothing-here', { origin, brand: sampleBrand });
    expect(html).toBe(`<main class="page" dir="ltr" lang="en">${ar.notFound}</main>`);
  });

  it('keeps the link-preview image generic: it names no provider', () => {
    const tags = previewTags(render(form, { origin, brand: sampleBrand }).head);
    expect(tags['og:image']).toBe(`${origin}/register/og-image.png`);
    expect(tags['og:image:alt']).toBe(arPreview.imageAlt);
  });
});

describe('a form the server answered (posted without JavaScript)', () => {
  const typed = { name: 'سارة', email: 'sara@example.com', phone: '12345' };
  const refused: FormState = {
    values: typed,
    invalid: ['phone'],
    error: arForm.errorInvalid,
    success: '',
  };

  function showRendered(html: string) {
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.append(container);
    onTestFinished(() => container.remove());
    return container;
  }

  it('shows the error tied to the invalid field, and the values as typed', () => {
    showRendered(
      render('/register/register-client', { origin: '', brand: sampleBrand, form: refused }).html,
    );
    const phone = screen.getByRole('textbox', { name: arForm.fieldPhone });
    expect(screen.getByRole('alert')).toHaveTextContent(arForm.errorInvalid);
    expect(phone).toHaveValue(typed.phone);
    expect(phone).toBeInvalid();
    expect(phone).toHaveAccessibleDescription(arForm.errorInvalid);
    expect(screen.getByRole('textbox', { name: arForm.fieldName })).toHaveValue(typed.name);
    expect(screen.getByRole('textbox', { name: arForm.fieldName })).toBeValid();
    expect(screen.getByRole('banner')).toHaveTextContent(sampleBrand.name);
    expect(document.querySelector('.licence')?.textContent).toBe(ar.licence('08126-37'));
  });

  it('shows the success line and an empty form', () => {
    const signedUp = { values: { name: '', email: '', phone: '' }, invalid: [], error: '' };
    showRendered(
      render('/register/marketer/42', {
        origin: '',
        brand: sampleBrand,
        form: { ...signedUp, success: arForm.success },
      }).html,
    );
    expect(screen.getByRole('status')).toHaveTextContent(arForm.success);
    expect(screen.getByRole('textbox', { name: arForm.fieldName })).toHaveValue('');
    expect(screen.getByRole('banner')).toHaveTextContent(sampleBrand.name);
    expect(document.querySelector('.licence')?.textContent).toBe(ar.licence('08126-37'));
  });

  it.each([
    ['an error', refused],
    [
      'the success line',
      {
        values: { name: '', email: '', phone: '' },
        invalid: [],
        error: '',
        success: arForm.success,
      },
    ],
  ])('is hydrated with %s as shown, without a mismatch', async (_, form) => {
    const url = '/register/register-client/economy_reco/3';
    const container = showRendered(render(url, { origin: '', brand: sampleBrand, form }).html);
    const consoleError = vi.spyOn(console, 'error');
    const onRecoverableError = vi.fn();

    const root = await act(async () =>
      hydrateRoot(container, <App location={url} brand={sampleBrand} />, { onRecoverableError }),
    );

    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
    expect(screen.getByRole('alert')).toHaveTextContent(form.error);
    expect(screen.getByRole('status')).toHaveTextContent(form.success);
    expect(screen.getByRole('textbox', { name: arForm.fieldPhone })).toHaveValue(form.values.phone);
    act(() => root.unmount());
  });
});

describe('hydrating what render produced', () => {
  it.each([
    ['the link page for a marketer', '/register/my-registration-link', arLinkPage.heading],
    [
      'a form',
      '/register/register-client/economy_reco/3',
      `${arForm.headingPrefix} ${packageLabels.economy_reco}`,
    ],
  ])('resolves %s without a mismatch', async (_, url, heading) => {
    localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 42 }));
    const container = document.createElement('div');
    container.innerHTML = render(url).html;
    document.body.append(container);
    const consoleError = vi.spyOn(console, 'error');
    const onRecoverableError = vi.fn();

    const root = await act(async () =>
      hydrateRoot(container, <App location={url} brand={defaultBrand} />, { onRecoverableError }),
    );

    // The link page's card comes with its own chunk.
    expect(await screen.findByRole('heading', { name: heading })).toBeInTheDocument();
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
    act(() => root.unmount());
    container.remove();
  });

  it('draws the same provider as the server, read from the head it wrote', async () => {
    const url = '/register/register-client/economy_reco/3';
    const page = render(url, { origin: '', brand: sampleBrand });
    document.head.innerHTML = page.head;
    const container = document.createElement('div');
    container.innerHTML = page.html;
    document.body.append(container);
    const consoleError = vi.spyOn(console, 'error');
    const onRecoverableError = vi.fn();

    expect(readBrand()).toEqual(sampleBrand);
    const root = await act(async () =>
      hydrateRoot(container, <App location={url} brand={readBrand()} />, { onRecoverableError }),
    );

    expect(screen.getByRole('banner')).toHaveTextContent(sampleBrand.name);
    expect(screen.getByText(ar.licence('08126-37'))).toBeInTheDocument();
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
    act(() => root.unmount());
    container.remove();
    document.head.innerHTML = '';
  });

  it('keeps the stamp the server served the form with, posted as it is and sent by the script', async () => {
    const url = '/register/register-client/economy_reco/3';
    const stamp = '1772355600000.AAAAAAAAAAAAAAAAAAAAAA';
    const { html } = render(url, { origin: '', brand: sampleBrand, formStamp: stamp });
    // Without JavaScript the browser posts it with the fields.
    expect(html).toContain(`name="${formStampField}" value="${stamp}"`);
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.append(container);
    onTestFinished(() => container.remove());
    const consoleError = vi.spyOn(console, 'error');
    const onRecoverableError = vi.fn();
    const fetch = vi.fn<typeof globalThis.fetch>(async () => new Response(null, { status: 201 }));
    vi.stubGlobal('fetch', fetch);

    const root = await act(async () =>
      hydrateRoot(container, <App location={url} brand={sampleBrand} />, { onRecoverableError }),
    );
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: arForm.fieldName }), 'Sara');
    await user.type(screen.getByRole('textbox', { name: arForm.fieldPhone }), '966512345678');
    await user.click(screen.getByRole('button', { name: arForm.buttonSubmit }));

    await waitFor(() => expect(fetch).toHaveBeenCalledOnce());
    expect(JSON.parse(String(fetch.mock.calls[0]?.[1]?.body))).toMatchObject({
      [formStampField]: stamp,
    });
    act(() => root.unmount());
  });
});
