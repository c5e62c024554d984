import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { arLinkPage } from '../domain/catalogue/link-page';
import { arNotifications } from '../domain/catalogue/notifications';
import { arProgram } from '../domain/catalogue/program';
import { marketerStatsMeta } from '../domain/marketer-stats';
import { notificationsPath, type Notifications } from '../domain/notifications';
import { NotificationsSection } from './notifications-section';
import { renderApp } from './test-helpers';

const marketer: Notifications = {
  email: 'sara@example.com',
  confirmed: false,
  confirmation_sent: false,
  offered: ['weekly_summary', 'client_alerts'],
  weekly_summary: false,
  client_alerts: false,
  review_digest: false,
};

const json = (body: unknown, status = 200) => Promise.resolve(Response.json(body, { status }));

/**
 * The API as the section meets it: `get` answers the GET of /api/notifications, `put` each PUT
 * (with its JSON body); any other call (a page's numbers) is refused as a page without them.
 */
function stubApi(
  get: () => Promise<Response>,
  put: (body: unknown) => Promise<Response> = () => json(marketer),
) {
  const fetch = vi.fn<typeof globalThis.fetch>((input, init) => {
    if (String(input) !== notificationsPath) return json({ error: 'off' }, 404);
    if (init?.method === 'PUT') return put(JSON.parse(String(init.body)));
    return get();
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

const puts = (fetch: ReturnType<typeof stubApi>) =>
  fetch.mock.calls.filter(([, init]) => init?.method === 'PUT');

const region = () => screen.findByRole('region', { name: arNotifications.heading });
const emailField = () => screen.getByRole('textbox', { name: arNotifications.fieldEmail });
const checkbox = (choice: keyof typeof arNotifications.choices) =>
  screen.getByRole('checkbox', { name: arNotifications.choices[choice] });
const saveButton = () => screen.getByRole('button', { name: arNotifications.buttonSave });

function showSection() {
  localStorage.setItem('token', 'eyJ.signed.token');
  render(<NotificationsSection storageKey="token" />);
}

describe('the e-mails section', () => {
  it('is not shown when the server sends no e-mails (404), nor while it is asked', async () => {
    let answer: (response: Response) => void = () => {};
    const fetch = stubApi(() => new Promise<Response>((resolve) => (answer = resolve)));
    showSection();
    await waitFor(() => expect(fetch).toHaveBeenCalled());
    expect(screen.queryByRole('region')).toBeNull();
    // act() lets the answer's promises settle and React render what they set: still nothing.
    await act(async () => answer(Response.json({ error: 'not found' }, { status: 404 })));
    expect(screen.queryByRole('region')).toBeNull();
    expect(screen.queryByRole('textbox')).toBeNull();
  });

  it('is not shown when the server says e-mail is off (204)', async () => {
    const fetch = stubApi(() => Promise.resolve(new Response(null, { status: 204 })));
    showSection();
    await waitFor(() => expect(fetch).toHaveBeenCalled());
    // Settled: no error drawn either (a 204 is no refusal).
    await act(async () => {});
    expect(screen.queryByRole('region')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('sends the stored token, and shows the address and only the choices offered', async () => {
    const fetch = stubApi(() => json(marketer));
    showSection();
    await region();
    expect(fetch).toHaveBeenCalledWith(notificationsPath, {
      credentials: 'same-origin',
      headers: { authorization: 'Bearer eyJ.signed.token' },
      signal: expect.any(AbortSignal),
    });
    expect(emailField()).toHaveValue(marketer.email);
    expect(screen.getAllByRole('checkbox')).toHaveLength(2);
    expect(checkbox('weekly_summary')).not.toBeChecked();
    expect(checkbox('client_alerts')).not.toBeChecked();
    expect(
      screen.queryByRole('checkbox', { name: arNotifications.choices.review_digest }),
    ).toBeNull();
    expect(screen.getByText(arNotifications.consent)).toBeInTheDocument();
  });

  it("offers a programme role's choices: the weekly summary and the review digest", async () => {
    stubApi(() =>
      json({
        ...marketer,
        offered: ['weekly_summary', 'review_digest'],
        review_digest: true,
      }),
    );
    showSection();
    await region();
    expect(checkbox('review_digest')).toBeChecked();
    expect(
      screen.queryByRole('checkbox', { name: arNotifications.choices.client_alerts }),
    ).toBeNull();
  });

  it('sends only what changed, with the token, and says a confirmation e-mail was sent', async () => {
    const fetch = stubApi(
      () => json(marketer),
      () => json({ ...marketer, weekly_summary: true, confirmation_sent: true }),
    );
    showSection();
    await region();
    await userEvent.click(checkbox('weekly_summary'));
    await userEvent.click(saveButton());

    expect(await screen.findByRole('status')).toHaveTextContent(
      arNotifications.confirmationSent(marketer.email ?? ''),
    );
    expect(puts(fetch)).toEqual([
      [
        notificationsPath,
        {
          method: 'PUT',
          credentials: 'same-origin',
          headers: {
            'content-type': 'application/json',
            authorization: 'Bearer eyJ.signed.token',
          },
          body: JSON.stringify({ weekly_summary: true }),
        },
      ],
    ]);
    expect(checkbox('weekly_summary')).toBeChecked();
  });

  it('sends a typed address alone when only it changed, and says where confirmed e-mails go', async () => {
    const typed = 'sara.work@example.com';
    const bodies: unknown[] = [];
    stubApi(
      () => json({ ...marketer, confirmed: true, weekly_summary: true }),
      (body) => {
        bodies.push(body);
        return json({ ...marketer, email: typed, confirmed: true, weekly_summary: true });
      },
    );
    showSection();
    await region();
    expect(screen.getByRole('status')).toHaveTextContent(
      arNotifications.sendingTo(marketer.email ?? ''),
    );
    await userEvent.clear(emailField());
    await userEvent.type(emailField(), typed);
    await userEvent.click(saveButton());

    await waitFor(() =>
      expect(screen.getByRole('status')).toHaveTextContent(arNotifications.sendingTo(typed)),
    );
    expect(bodies).toEqual([{ email: typed }]);
  });

  it('is busy while saving: the button disabled and says so, the form aria-busy', async () => {
    let answer: (response: Response) => void = () => {};
    stubApi(
      () => json(marketer),
      () => new Promise<Response>((resolve) => (answer = resolve)),
    );
    showSection();
    await region();
    await userEvent.click(checkbox('client_alerts'));
    await userEvent.click(saveButton());

    const busy = screen.getByRole('button', { name: arNotifications.buttonSaving });
    expect(busy).toBeDisabled();
    expect(busy.closest('form')).toHaveAttribute('aria-busy', 'true');
    answer(Response.json({ ...marketer, client_alerts: true }));
    expect(await screen.findByRole('button', { name: arNotifications.buttonSave })).toBeEnabled();
  });

  it("shows the server's refusal (429) and keeps what was typed and ticked", async () => {
    const refusal = 'محاولات كثيرة، يرجى المحاولة بعد ساعة';
    stubApi(
      () => json(marketer),
      () => json({ error: refusal }, 429),
    );
    showSection();
    await region();
    await userEvent.clear(emailField());
    await userEvent.type(emailField(), 'other@example.com');
    await userEvent.click(checkbox('client_alerts'));
    await userEvent.click(saveButton());

    expect(await screen.findByRole('alert')).toHaveTextContent(refusal);
    expect(emailField()).toHaveValue('other@example.com');
    expect(checkbox('client_alerts')).toBeChecked();
    expect(screen.getByRole('status')).toHaveTextContent('');
  });

  it.each([
    ['no answer (the connection)', () => Promise.reject(new TypeError('Failed to fetch'))],
    ['503', () => json({ error: 'unavailable' }, 503)],
  ])('says so in its own words on %s, keeping what was typed', async (_, failure) => {
    stubApi(() => json(marketer), failure);
    showSection();
    await region();
    await userEvent.click(checkbox('weekly_summary'));
    await userEvent.click(saveButton());

    expect(await screen.findByRole('alert')).toHaveTextContent(arNotifications.errorSave);
    expect(checkbox('weekly_summary')).toBeChecked();
    expect(saveButton()).toBeEnabled();
  });

  it('ties each label to its field, and saves from the keyboard', async () => {
    const bodies: unknown[] = [];
    stubApi(
      () => json(marketer),
      (body) => {
        bodies.push(body);
        return json({ ...marketer, client_alerts: true, confirmation_sent: true });
      },
    );
    showSection();
    await region();
    await userEvent.click(emailField());
    await userEvent.tab();
    expect(checkbox('weekly_summary')).toHaveFocus();
    await userEvent.tab();
    await userEvent.keyboard(' ');
    await userEvent.tab();
    expect(saveButton()).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(bodies).toEqual([{ client_alerts: true }]));
  });

  it('shows a retry when the choices could not be loaded', async () => {
    let calls = 0;
    stubApi(() => (calls++ === 0 ? json({ error: 'x' }, 500) : json(marketer)));
    showSection();
    const shown = await region();
    expect(within(shown).getByRole('alert')).toHaveTextContent(arNotifications.errorLoad);
    await userEvent.click(screen.getByRole('button', { name: arNotifications.buttonRetry }));
    expect(await screen.findByRole('textbox', { name: arNotifications.fieldEmail })).toHaveValue(
      marketer.email,
    );
  });
});

describe('the e-mails section on its pages', () => {
  beforeEach(() => {
    const meta = document.createElement('meta');
    meta.name = marketerStatsMeta;
    meta.content = 'token';
    document.head.append(meta);
    localStorage.setItem('token', 'eyJ.signed.token');
  });
  afterEach(() => {
    document.head.querySelector(`meta[name="${marketerStatsMeta}"]`)?.remove();
  });

  it("is on the link page, under the marketer's link", async () => {
    localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 42 }));
    stubApi(() => json(marketer));
    renderApp('/register/my-registration-link');
    await screen.findByRole('heading', { name: arLinkPage.heading });
    expect(await region()).toBeInTheDocument();
  });

  it("is on the programme's page", async () => {
    stubApi(() => json({ ...marketer, offered: ['weekly_summary', 'review_digest'] }));
    renderApp('/register/program');
    await screen.findByRole('heading', { name: arProgram.heading });
    expect(await region()).toBeInTheDocument();
    expect(checkbox('review_digest')).not.toBeChecked();
  });

  it('is not on a page whose server has no token to send (no marketer-stats meta)', async () => {
    document.head.querySelector(`meta[name="${marketerStatsMeta}"]`)?.remove();
    localStorage.setItem('user', JSON.stringify({ role: 'marketing', id: 42 }));
    const fetch = stubApi(() => json(marketer));
    renderApp('/register/my-registration-link');
    await screen.findByRole('heading', { name: arLinkPage.heading });
    expect(fetch).not.toHaveBeenCalledWith(notificationsPath, expect.anything());
    expect(screen.queryByRole('region', { name: arNotifications.heading })).toBeNull();
  });
});
