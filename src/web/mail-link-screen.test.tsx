import { act, screen, within } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { arNotifications } from '../domain/catalogue/notifications';
import { ar } from '../domain/catalogue/shared';
import { basePath } from '../domain/links';
import { mailKinds, type MailLinkOutcome } from '../domain/notifications';
import { App } from './app';
import { render } from './entry-server';
import { renderApp, sampleBrand } from './test-helpers';

const token = 'q7Yk2v9sXbN4mT1rLc8wPz';
const confirmUrl = `${basePath}/notifications/confirm/${token}`;
const stopUrl = (kind: string) => `${basePath}/notifications/stop/${kind}/${token}`;

/** The server's page for `url`, in the document as a browser shows it before any script. */
function showServerPage(url: string, mailLink?: MailLinkOutcome) {
  const container = document.createElement('div');
  container.innerHTML = render(url, {
    origin: 'https://tasjeel.example',
    brand: sampleBrand,
    mailLink,
  }).html;
  document.body.append(container);
  onTestFinished(() => container.remove());
  return container;
}

/** The one form of the page, and its button, checked to post to the page's own address. */
function postForm() {
  const button = screen.getByRole('button');
  const form = button.closest('form');
  expect(form).not.toBeNull();
  expect(form?.getAttribute('method')).toBe('post');
  // No action: the browser posts to the address it shows, the link's.
  expect(form?.hasAttribute('action')).toBe(false);
  return button;
}

describe('the confirmation page (an e-mail link: /register/notifications/confirm/:token)', () => {
  it('says what its button does and changes nothing when opened: one button, posted to itself', () => {
    showServerPage(confirmUrl);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      arNotifications.confirmHeading,
    );
    expect(screen.getByText(arNotifications.confirmLead)).toBeInTheDocument();
    expect(screen.getAllByRole('button')).toHaveLength(1);
    expect(postForm()).toHaveAccessibleName(arNotifications.confirmButton);
    expect(postForm()).toHaveAttribute('type', 'submit');
  });

  it.each([
    ['done', arNotifications.confirmDone],
    ['invalid', arNotifications.confirmInvalid],
  ] as const)('after the post, %s: says so, with no button to press again', (outcome, text) => {
    showServerPage(confirmUrl, outcome);
    expect(screen.getByText(text)).toBeInTheDocument();
    expect(screen.queryByText(arNotifications.confirmLead)).toBeNull();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('after a post that failed: says so, and keeps the button to try again', () => {
    showServerPage(confirmUrl, 'failed');
    expect(screen.getByText(arNotifications.linkFailed)).toBeInTheDocument();
    expect(postForm()).toHaveAccessibleName(arNotifications.confirmButton);
  });

  it('is titled, asks not to be indexed, and has no preview: nothing in the head names the token', () => {
    const { head } = render(confirmUrl, { origin: 'https://tasjeel.example', brand: sampleBrand });
    expect(head).toContain('<meta name="robots" content="noindex" />');
    expect(head).toContain(ar.titleConfirmNotifications(escaped(sampleBrand.name)));
    expect(head).not.toContain('og:');
    expect(head).not.toContain(token);
  });
});

describe('the unsubscribe page (List-Unsubscribe: /register/notifications/stop/:kind/:token)', () => {
  it.each(mailKinds)('names what it stops (%s), with one button posted to itself', (kind) => {
    showServerPage(stopUrl(kind));
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      arNotifications.stopHeading,
    );
    expect(screen.getByText(arNotifications.stop[kind].lead)).toBeInTheDocument();
    const button = postForm();
    expect(button).toHaveAccessibleName(arNotifications.stop[kind].button);
    // What a mail provider's one-click unsubscribe posts (RFC 8058): the server reads both alike.
    expect(button).toHaveAttribute('name', 'List-Unsubscribe');
    expect(button).toHaveAttribute('value', 'One-Click');
  });

  it.each(mailKinds)(
    'after the post (%s), says what stopped and where to turn it on again',
    (kind) => {
      showServerPage(stopUrl(kind), 'done');
      expect(screen.getByText(arNotifications.stop[kind].done)).toBeInTheDocument();
      expect(screen.queryByRole('button')).toBeNull();
    },
  );

  it('after the post of a link unknown or used: says what to do instead', () => {
    showServerPage(stopUrl('weekly'), 'invalid');
    expect(screen.getByText(arNotifications.stopInvalid)).toBeInTheDocument();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('after a post that failed: says so, and keeps the button', () => {
    showServerPage(stopUrl('review'), 'failed');
    expect(screen.getByText(arNotifications.linkFailed)).toBeInTheDocument();
    expect(postForm()).toHaveAccessibleName(arNotifications.stop.review.button);
  });

  it('is a 404 for a kind of e-mail that does not exist', () => {
    showServerPage(stopUrl('daily'));
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.getByText(ar.notFound)).toBeInTheDocument();
  });

  it('is titled, asks not to be indexed, and has no preview', () => {
    const { head } = render(stopUrl('client'), { origin: 'https://x.example', brand: sampleBrand });
    expect(head).toContain('<meta name="robots" content="noindex" />');
    expect(head).toContain(ar.titleStopNotifications(escaped(sampleBrand.name)));
    expect(head).not.toContain('og:');
    expect(head).not.toContain(token);
  });
});

describe('hydrating an e-mail page', () => {
  it.each([undefined, 'done', 'invalid', 'failed'] as const)(
    'keeps what the server showed (outcome %s), without a mismatch, once its chunk is in',
    async (outcome) => {
      const container = showServerPage(confirmUrl, outcome);
      const before = container.querySelector('.card')?.textContent;
      const consoleError = vi.spyOn(console, 'error');
      const onRecoverableError = vi.fn();

      const root = await act(async () =>
        hydrateRoot(container, <App location={confirmUrl} brand={sampleBrand} />, {
          onRecoverableError,
        }),
      );
      // Its chunk in, React hydrates the screen: the heading is React's then.
      await act(async () => {
        await import('./mail-link-screen');
      });
      await vi.waitFor(() => expect(isHydrated(container.querySelector('h1'))).toBe(true));
      expect(container.querySelector('.card')?.textContent).toBe(before);
      expect(onRecoverableError).not.toHaveBeenCalled();
      expect(consoleError).not.toHaveBeenCalled();
      act(() => root.unmount());
    },
  );

  it('draws the page on the client alone too (no server HTML): the button, nothing done', async () => {
    renderApp(stopUrl('weekly'));
    const main = await screen.findByRole('main');
    expect(
      await within(main).findByRole('button', { name: arNotifications.stop.weekly.button }),
    ).toBeInTheDocument();
  });
});

/** Whether React has taken over an element of the server's HTML (its fiber is on it). */
function isHydrated(element: Element | null): boolean {
  return element !== null && Object.keys(element).some((key) => key.startsWith('__reactFiber'));
}

/** A text as the head writes it: escaped for HTML. */
function escaped(text: string): string {
  return text.replace(/&/g, '&amp;');
}
