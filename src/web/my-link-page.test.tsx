import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ar } from '../domain/catalogue';
import { brand } from './env';
import { renderApp } from './render-app';

const path = '/register/my-registration-link';

// jsdom has neither the Clipboard API nor execCommand; each test puts in what it needs.
function setNavigatorClipboard(clipboard: Pick<Clipboard, 'writeText'> | undefined) {
  Object.defineProperty(navigator, 'clipboard', { value: clipboard, configurable: true });
}

function setExecCommand(execCommand: (command: string) => boolean) {
  Object.defineProperty(document, 'execCommand', { value: execCommand, configurable: true });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'clipboard');
  Reflect.deleteProperty(document, 'execCommand');
});

function storeUser(user: unknown) {
  localStorage.setItem('user', JSON.stringify(user));
}

const linkBox = () => screen.getByRole<HTMLTextAreaElement>('textbox', { name: ar.headingMyLink });
const copyButton = () => screen.getByRole('button', { name: ar.buttonCopy });

describe('the my-registration-link page', () => {
  it.each(['marketing', 'team_leader_marketing'])('shows a %s user their link', (role) => {
    storeUser({ role, id: 42 });
    renderApp(path);
    expect(screen.getByRole('heading', { name: ar.headingMyLink })).toBeInTheDocument();
    expect(linkBox()).toHaveValue(`${location.origin}/register/marketer/42`);
    expect(linkBox()).toHaveAttribute('readonly');
    expect(linkBox()).toHaveAttribute('dir', 'ltr');
    expect(screen.queryByText(ar.errorNotAuthorized)).not.toBeInTheDocument();
    expect(document.title).toBe(ar.titleMyLink(brand));
  });

  it('copies the link with the Clipboard API, then says so', async () => {
    storeUser({ role: 'marketing', id: 'm-7' });
    const writeText = vi.fn<Clipboard['writeText']>().mockResolvedValue();
    setNavigatorClipboard({ writeText });
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    renderApp(path);

    fireEvent.click(copyButton());
    await waitFor(() => expect(alert).toHaveBeenCalledWith(ar.alertCopied));
    expect(writeText).toHaveBeenCalledWith(`${location.origin}/register/marketer/m-7`);
    expect(writeText.mock.invocationCallOrder[0]).toBeLessThan(alert.mock.invocationCallOrder[0]!);
  });

  it.each([
    ['the Clipboard API is missing (plain http)', undefined],
    ['the Clipboard API refuses', { writeText: () => Promise.reject(new Error('denied')) }],
  ])('falls back to a selection copy when %s', async (_, clipboard) => {
    storeUser({ role: 'team_leader_marketing', id: 9 });
    setNavigatorClipboard(clipboard);
    let selected = '';
    const execCommand = vi.fn((command: string) => {
      const box = linkBox();
      selected = box.value.slice(box.selectionStart ?? 0, box.selectionEnd ?? 0);
      return command === 'copy';
    });
    setExecCommand(execCommand);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    renderApp(path);

    fireEvent.click(copyButton());
    await waitFor(() => expect(alert).toHaveBeenCalledWith(ar.alertCopied));
    expect(execCommand).toHaveBeenCalledWith('copy');
    expect(selected).toBe(`${location.origin}/register/marketer/9`);
  });

  it('does not claim a copy that failed, and leaves the link selected', async () => {
    storeUser({ role: 'marketing', id: 9 });
    setNavigatorClipboard(undefined);
    const execCommand = vi.fn(() => false);
    setExecCommand(execCommand);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    renderApp(path);

    fireEvent.click(copyButton());
    await waitFor(() => expect(execCommand).toHaveBeenCalled());
    expect(alert).not.toHaveBeenCalled();
    const box = linkBox();
    expect([box.selectionStart, box.selectionEnd]).toEqual([0, box.value.length]);
  });

  it.each([
    ['another role', JSON.stringify({ role: 'client', id: 42 })],
    ['no user', null],
    ['malformed JSON', '{"role": "marketing", "id": '],
    ['a marketer without an id', JSON.stringify({ role: 'marketing' })],
  ])('shows only the refusal to %s', (_, storedUser) => {
    if (storedUser !== null) localStorage.setItem('user', storedUser);
    const { container } = renderApp(path);
    expect(container.textContent).toBe(ar.errorNotAuthorized);
    expect(screen.queryByRole('heading')).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
  });

  it('follows a login or logout in another tab', () => {
    renderApp(path);
    expect(screen.getByText(ar.errorNotAuthorized)).toBeInTheDocument();
    storeUser({ role: 'marketing', id: 5 });
    fireEvent(window, new StorageEvent('storage', { key: 'user' }));
    expect(linkBox()).toHaveValue(`${location.origin}/register/marketer/5`);
  });
});
