import { act, screen } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { ar } from '../domain/catalogue';
import { packageLabels } from '../domain/packages';
import { App } from './app';
import { render } from './entry-server';
import { brand } from './env';
import { basename } from './routes';

describe('render, the contract with the server', () => {
  it('renders a form route with status 200, its title in the head and its heading', () => {
    const page = render('/register/register-client/premium_reco/42?utm_source=whatsapp');
    const label = packageLabels.premium_reco;
    expect(page.status).toBe(200);
    expect(page.head).toBe(`<title>${ar.titlePackage(label, brand)}</title>`);
    expect(page.html).toContain(`<h1 id="heading">${ar.headingPrefix} ${label}</h1>`);
    expect(page.html).not.toContain('<title');
  });

  it('renders every route of SPEC §2 with status 200', () => {
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
      head: `<title>${ar.notFound}</title>`,
      html: ar.notFound,
    });
  });

  it('escapes a hostile package name in the head and the page', () => {
    const page = render(`/register/register-client/${encodeURIComponent('<script>"&\'')}`);
    const escaped = '&lt;script&gt;&quot;&amp;&#39;';
    expect(page.head).toBe(`<title>${ar.titlePackage(escaped, brand)}</title>`);
    expect(page.html).not.toContain('<script>');
    expect(page.html).toContain('&lt;script&gt;');
  });

  it('renders the link page without a link or a refusal: the server cannot know the user', () => {
    localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 42 }));
    const page = render('/register/my-registration-link');
    expect(page.head).toBe(`<title>${ar.titleMyLink(brand)}</title>`);
    expect(page.html).not.toContain('/register/marketer/');
    expect(page.html).not.toContain(ar.errorNotAuthorized);
    expect(page.html).not.toContain(ar.headingMyLink);
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
      hydrateRoot(
        container,
        <MemoryRouter basename={basename} initialEntries={[url]}>
          <App />
        </MemoryRouter>,
        { onRecoverableError },
      ),
    );

    expect(screen.getByRole('heading', { name: heading })).toBeInTheDocument();
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
    act(() => root.unmount());
    container.remove();
  });
});
