import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/web/pbkdf2';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { arForm } from '../domain/catalogue/form';
import { ar } from '../domain/catalogue/shared';
import { privacyVersionField, proofOfWorkMeta, trapField } from '../domain/form-fields';
import { signedUpParameter } from '../domain/links';
import { buildNotes, type RouteAttribution } from '../domain/notes';
import { apiBaseUrl } from './env';
import { renderApp } from './test-helpers';

const validPhone = '966512345678';

function stubFetch(answer: (input: RequestInfo | URL) => Promise<Response>) {
  const fetch = vi.fn<typeof globalThis.fetch>(answer);
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

const created = () => Promise.resolve(new Response(null, { status: 201 }));

function deferredFetch() {
  let answer: (response: Response) => void = () => {};
  const fetch = stubFetch(() => new Promise((resolve) => (answer = resolve)));
  return { fetch, answer: (response: Response) => answer(response) };
}

const nameField = () => screen.getByRole('textbox', { name: arForm.fieldName });
const emailField = () => screen.getByRole('textbox', { name: arForm.fieldEmail });
const phoneField = () => screen.getByRole<HTMLInputElement>('textbox', { name: arForm.fieldPhone });
const submitButton = () => screen.getByRole('button', { name: arForm.buttonSubmit });
const errorLine = () => screen.getByRole('alert');
const statusLine = () => screen.getByRole('status');

async function fillIn(values: { name?: string; email?: string; phone?: string }) {
  const user = userEvent.setup();
  if (values.name) await user.type(nameField(), values.name);
  if (values.email) await user.type(emailField(), values.email);
  if (values.phone) await user.type(phoneField(), values.phone);
  return user;
}

async function submitValid(path = '/register/register-client') {
  renderApp(path);
  const user = await fillIn({ name: 'Sara', email: 'sara@example.com', phone: validPhone });
  await user.click(submitButton());
  return user;
}

function sentBody(fetch: ReturnType<typeof stubFetch>): unknown {
  const init = fetch.mock.calls[0]?.[1];
  return JSON.parse(String(init?.body));
}

describe('the registration form', () => {
  it('has the fields and buttons of docs/product.md §2', () => {
    renderApp('/register/register-client');
    expect(nameField()).toBeRequired();
    expect(nameField()).toHaveAttribute('autocomplete', 'name');
    expect(emailField()).not.toBeRequired();
    expect(emailField()).toHaveAttribute('type', 'email');
    expect(phoneField()).toBeRequired();
    expect(phoneField()).toHaveAttribute('type', 'tel');
    expect(phoneField()).toHaveAttribute('maxlength', '12');
    expect(phoneField()).toHaveAttribute('inputmode', 'numeric');
    expect(phoneField()).toHaveAttribute('dir', 'ltr');
    expect(phoneField()).toHaveAttribute('placeholder', arForm.fieldPhonePlaceholder);
    expect(screen.getByRole('link', { name: arForm.buttonBack })).toHaveAttribute('href', '/');
    expect(errorLine()).toBeEmptyDOMElement();
    expect(statusLine()).toBeEmptyDOMElement();
  });

  it('takes the sign-up mark out of the address, so a copied link greets nobody with a success', () => {
    const before = window.location.href;
    onTestFinished(() => window.history.replaceState(null, '', before));
    window.history.replaceState(null, '', `/register/marketer/42?${signedUpParameter}&utm=wa`);
    renderApp('/register/marketer/42');
    expect(window.location.pathname).toBe('/register/marketer/42');
    expect(window.location.search).toBe('?utm=wa');
  });

  it("sends the page address's campaign parameters, cleaned, with the sign-up", async () => {
    const before = window.location.href;
    onTestFinished(() => window.history.replaceState(null, '', before));
    const campaign = 'c'.repeat(300);
    window.history.replaceState(
      null,
      '',
      `/register/marketer/42?utm_source=snap%07chat&utm_medium=+cpc+&utm_campaign=${campaign}&utm_foo=x`,
    );
    const fetch = stubFetch(created);
    await submitValid('/register/marketer/42');
    await waitFor(() => expect(statusLine()).toHaveTextContent(arForm.success));
    expect(sentBody(fetch)).toEqual({
      name: 'Sara',
      email: 'sara@example.com',
      phone: validPhone,
      notes: buildNotes({ marketingId: '42' }),
      marketing_id: '42',
      utm_medium: 'cpc',
      utm_campaign: 'c'.repeat(100),
    });
  });

  it('hides its honeypot from people and assistive technology, and a person never fills it', async () => {
    const fetch = stubFetch(created);
    const { container } = renderApp('/register/register-client');
    expect(screen.queryByRole('textbox', { name: arForm.fieldTrap })).toBeNull();
    const trap = container.querySelector(`input[name="${trapField}"]`);
    expect(trap).toHaveAttribute('tabindex', '-1');
    expect(trap).toHaveAttribute('autocomplete', 'off');
    const user = await fillIn({ name: 'Sara', phone: validPhone });
    await user.click(submitButton());
    await waitFor(() => expect(fetch).toHaveBeenCalledOnce());
    expect(sentBody(fetch)).not.toHaveProperty(trapField);
  });

  it('sends the version of the privacy notice it shows, and none when it shows no notice', async () => {
    const privacyUrl = 'https://provider.example/privacy';
    for (const [brand, sent] of [
      [{ name: 'x', privacyUrl, privacyVersion: '2026-11' }, '2026-11'],
      [{ name: 'x', privacyUrl }, ''],
    ] as const) {
      const fetch = stubFetch(created);
      const { unmount } = renderApp('/register/register-client', brand);
      expect(screen.getByRole('link', { name: ar.privacyLink })).toHaveAttribute(
        'href',
        privacyUrl,
      );
      const user = await fillIn({ name: 'Sara', phone: validPhone });
      await user.click(submitButton());
      await waitFor(() => expect(fetch).toHaveBeenCalledOnce());
      expect(sentBody(fetch)).toMatchObject({ [privacyVersionField]: sent });
      unmount();
    }
    const fetch = stubFetch(created);
    renderApp('/register/register-client');
    expect(screen.queryByRole('link', { name: ar.privacyLink })).toBeNull();
    const user = await fillIn({ name: 'Sara', phone: validPhone });
    await user.click(submitButton());
    await waitFor(() => expect(fetch).toHaveBeenCalledOnce());
    expect(sentBody(fetch)).not.toHaveProperty(privacyVersionField);
  });

  it('sends the honeypot when a bot fills it, for the server to drop', async () => {
    const fetch = stubFetch(created);
    const { container } = renderApp('/register/register-client');
    const trap = container.querySelector<HTMLInputElement>(`input[name="${trapField}"]`);
    fireEvent.change(trap!, { target: { value: 'https://spam.example' } });
    const user = await fillIn({ name: 'Sara', phone: validPhone });
    await user.click(submitButton());
    await waitFor(() => expect(fetch).toHaveBeenCalledOnce());
    expect(sentBody(fetch)).toMatchObject({ [trapField]: 'https://spam.example' });
  });

  it('solves the proof of work the page asks for while the person types, and sends it', async () => {
    const meta = document.head.appendChild(document.createElement('meta'));
    meta.name = proofOfWorkMeta;
    meta.content = 'on';
    onTestFinished(() => meta.remove());
    const challenge = await createChallenge({
      algorithm: 'PBKDF2/SHA-256',
      cost: 10,
      counter: 50,
      deriveKey,
      hmacSignatureSecret: 'k'.repeat(32),
      hmacKeySignatureSecret: 'l'.repeat(32),
    });
    const fetch = stubFetch(async (input) =>
      String(input).endsWith('/api/altcha-challenge')
        ? new Response(JSON.stringify(challenge), { status: 200 })
        : new Response(null, { status: 201 }),
    );
    renderApp('/register/register-client');
    const user = await fillIn({ name: 'S' });
    expect(fetch).toHaveBeenCalledWith(`${apiBaseUrl}/api/altcha-challenge`);
    await user.type(phoneField(), validPhone);
    await user.click(submitButton());
    await waitFor(() => expect(statusLine()).toHaveTextContent(arForm.success));
    const posted = fetch.mock.calls.find(([input]) => String(input).endsWith('/external-register'));
    const { altcha } = JSON.parse(String(posted?.[1]?.body)) as { altcha: string };
    const payload = JSON.parse(atob(altcha)) as {
      challenge: unknown;
      solution: { counter: number };
    };
    expect(payload.challenge).toEqual(challenge);
    expect(payload.solution.counter).toBe(50);
  });

  it('fetches no challenge when the page does not ask for one', async () => {
    const fetch = stubFetch(created);
    renderApp('/register/register-client');
    const user = await fillIn({ name: 'Sara', phone: validPhone });
    await user.click(submitButton());
    await waitFor(() => expect(fetch).toHaveBeenCalledOnce());
    expect(fetch.mock.calls[0]?.[0]).toBe(`${apiBaseUrl}/api/external-register`);
  });

  describe('refuses, sending nothing', () => {
    it.each([
      ['an empty name', { phone: validPhone }, ['name']],
      ['a name of spaces', { name: '   ', phone: validPhone }, ['name']],
      ['an empty phone', { name: 'Sara' }, ['phone']],
      ['an 11-digit phone', { name: 'Sara', phone: '96651234567' }, ['phone']],
      ['a phone not starting 9665', { name: 'Sara', phone: '966412345678' }, ['phone']],
      ['an empty form', {}, ['name', 'phone']],
    ])('%s', async (_, values, invalid) => {
      const fetch = stubFetch(created);
      renderApp('/register/register-client/premium_reco/42');
      await fillIn(values);
      // The browser's own required check would stop a click first; the schema is what is tested.
      fireEvent.submit(screen.getByRole('form'));

      await waitFor(() => expect(errorLine()).toHaveTextContent(arForm.errorInvalid));
      expect(fetch).not.toHaveBeenCalled();
      for (const [field, label] of [
        ['name', arForm.fieldName],
        ['phone', arForm.fieldPhone],
      ] as const) {
        const input = screen.getByRole('textbox', { name: label });
        if (invalid.includes(field)) {
          expect(input).toHaveAttribute('aria-invalid', 'true');
          expect(input).toHaveAccessibleDescription(arForm.errorInvalid);
        } else {
          expect(input).not.toHaveAttribute('aria-invalid');
        }
      }
    });

    it('a 13-digit phone, which maxLength stops only for typing', async () => {
      const fetch = stubFetch(created);
      renderApp('/register/register-client');
      fireEvent.change(nameField(), { target: { value: 'Sara' } });
      fireEvent.change(phoneField(), { target: { value: '9665123456789' } });
      fireEvent.submit(screen.getByRole('form'));
      await waitFor(() => expect(errorLine()).toHaveTextContent(arForm.errorInvalid));
      expect(fetch).not.toHaveBeenCalled();
    });
  });

  it.each<[string, string, RouteAttribution]>([
    [
      'a package and a marketer',
      '/register/register-client/premium_reco/42',
      { packageName: 'premium_reco', marketingId: '42' },
    ],
    ['a package', '/register/register-client/classic_reco', { packageName: 'classic_reco' }],
    ['a marketer', '/register/marketer/m_7', { marketingId: 'm_7' }],
    ['neither', '/register/register-client', {}],
  ])('posts exactly the payload for %s', async (_, path, route) => {
    const fetch = stubFetch(created);
    renderApp(path);
    const user = await fillIn({ name: '  Sara  ', email: 'sara@example.com', phone: validPhone });
    await user.click(submitButton());

    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    expect(fetch).toHaveBeenCalledWith(`${apiBaseUrl}/api/external-register`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json' },
      body: expect.any(String),
    });
    const marketing = route.marketingId === undefined ? {} : { marketing_id: route.marketingId };
    expect(sentBody(fetch)).toStrictEqual({
      name: 'Sara',
      email: 'sara@example.com',
      phone: validPhone,
      notes: buildNotes(route),
      ...marketing,
    });
  });

  it('sends an empty e-mail as an empty string', async () => {
    const fetch = stubFetch(created);
    renderApp('/register/register-client');
    const user = await fillIn({ name: 'Sara', phone: validPhone });
    await user.click(submitButton());
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    expect(sentBody(fetch)).toMatchObject({ email: '' });
  });

  it('disables and relabels the button while the request is in flight', async () => {
    const { fetch, answer } = deferredFetch();
    await submitValid();

    const pending = screen.getByRole('button', { name: arForm.buttonSubmitting });
    expect(pending).toBeDisabled();
    expect(screen.queryByRole('button', { name: arForm.buttonSubmit })).not.toBeInTheDocument();
    fireEvent.submit(screen.getByRole('form'));
    expect(fetch).toHaveBeenCalledTimes(1);

    answer(new Response(null, { status: 201 }));
    expect(await screen.findByRole('button', { name: arForm.buttonSubmit })).toBeEnabled();
  });

  it('on success shows the success line, empties the fields and stays usable', async () => {
    const fetch = stubFetch(created);
    const user = await submitValid();

    await waitFor(() => expect(statusLine()).toHaveTextContent(arForm.success));
    expect(errorLine()).toBeEmptyDOMElement();
    expect(nameField()).toHaveValue('');
    expect(emailField()).toHaveValue('');
    expect(phoneField()).toHaveValue('');
    expect(submitButton()).toBeEnabled();

    await fillIn({ name: 'Omar', phone: validPhone });
    await user.click(submitButton());
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
  });

  it("shows the server's error text and keeps the values", async () => {
    stubFetch(() =>
      Promise.resolve(Response.json({ error: ar.errorTooManyRequests }, { status: 429 })),
    );
    await submitValid();

    await waitFor(() => expect(errorLine()).toHaveTextContent(ar.errorTooManyRequests));
    expect(statusLine()).toBeEmptyDOMElement();
    expect(nameField()).toHaveValue('Sara');
    expect(emailField()).toHaveValue('sara@example.com');
    expect(phoneField()).toHaveValue(validPhone);
    expect(submitButton()).toBeEnabled();
  });

  it.each([
    ['no error field', () => Promise.resolve(Response.json({ message: 'x' }, { status: 500 }))],
    ['an empty error', () => Promise.resolve(Response.json({ error: '' }, { status: 400 }))],
    ['a non-string error', () => Promise.resolve(Response.json({ error: 42 }, { status: 400 }))],
    [
      'a non-JSON body',
      () => Promise.resolve(new Response('<h1>Bad gateway</h1>', { status: 502 })),
    ],
    ['a network failure', () => Promise.reject(new TypeError('Failed to fetch'))],
  ])('falls back to the generic error for %s', async (_, answer) => {
    stubFetch(answer);
    await submitValid();
    await waitFor(() => expect(errorLine()).toHaveTextContent(arForm.errorGeneric));
    expect(phoneField()).toHaveValue(validPhone);
  });

  it('shows the generic error when what sending needs cannot be loaded, and loads it on the next press', async () => {
    const fetch = stubFetch(created);
    vi.doMock('../domain/registration', () => {
      throw new Error('no chunk');
    });
    let user: Awaited<ReturnType<typeof fillIn>>;
    try {
      renderApp('/register/register-client');
      user = await fillIn({ name: 'Sara', phone: validPhone });
      await user.click(submitButton());
      await waitFor(() => expect(errorLine()).toHaveTextContent(arForm.errorGeneric));
      expect(fetch).not.toHaveBeenCalled();
      expect(phoneField()).toHaveValue(validPhone);
      expect(submitButton()).toBeEnabled();
    } finally {
      vi.doUnmock('../domain/registration');
    }
    await user.click(submitButton());
    await waitFor(() => expect(statusLine()).toHaveTextContent(arForm.success));
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('clears earlier messages when submitted again', async () => {
    stubFetch(() => Promise.resolve(Response.json({ error: ar.errorBadRequest }, { status: 400 })));
    const user = await submitValid();
    await waitFor(() => expect(errorLine()).toHaveTextContent(ar.errorBadRequest));

    const { answer } = deferredFetch();
    await user.click(submitButton());
    expect(errorLine()).toBeEmptyDOMElement();
    expect(statusLine()).toBeEmptyDOMElement();

    answer(new Response(null, { status: 201 }));
    await waitFor(() => expect(statusLine()).toHaveTextContent(arForm.success));
    fireEvent.submit(screen.getByRole('form'));
    expect(statusLine()).toBeEmptyDOMElement();
    await waitFor(() => expect(errorLine()).toHaveTextContent(arForm.errorInvalid));
  });
});

describe('the phone field', () => {
  it.each([
    ['Arabic-Indic digits', '٩٦٦٥١٢٣٤٥٦٧٨', validPhone],
    ['Persian digits', '۹۶۶۵۱۲۳۴۵۶۷۸', validPhone],
    ['a local number in Arabic-Indic digits', '٠٥١٢٣٤٥٦٧٨', validPhone],
    ['a local number with a dash and a space', '050-123 4567', '966501234567'],
  ])('turns typed %s into ASCII 9665 form', async (_, typed, expected) => {
    renderApp('/register/register-client');
    await fillIn({ phone: typed });
    expect(phoneField()).toHaveValue(expected);
  });

  it.each([
    ['an international number with spaces', '', '+966 50 123 4567', '966501234567'],
    ['a local number in Arabic-Indic digits', '', '٠٥٠ ١٢٣ ٤٥٦٧', '966501234567'],
    ['the rest of a number after what was typed', '9665', '0 123 4567', '966501234567'],
    ['more than 12 digits', '', '9665012345678999', '966501234567'],
  ])('turns pasted %s into 9665 form', async (_, typed, pasted, expected) => {
    renderApp('/register/register-client');
    const user = await fillIn({ phone: typed });
    await user.click(phoneField());
    await user.paste(pasted);
    expect(phoneField()).toHaveValue(expected);
  });

  it('replaces the selected text when pasting over it', async () => {
    renderApp('/register/register-client');
    const user = await fillIn({ phone: validPhone });
    phoneField().setSelectionRange(4, 6);
    await user.paste('٩ ٨');
    expect(phoneField()).toHaveValue('966598345678');
  });
});
