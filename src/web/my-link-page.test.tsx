import { inflateSync } from 'node:zlib';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import jsQR from 'jsqr';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { arLinkPage } from '../domain/catalogue/link-page';
import { ar } from '../domain/catalogue/shared';
import { type PackageKey, packageKeys, packageLabels } from '../domain/packages';
import { renderApp } from './test-helpers';

const path = '/register/my-registration-link';

// jsdom has neither the Clipboard API nor execCommand; each test puts in what it needs.
function setNavigatorClipboard(clipboard: Pick<Clipboard, 'writeText'> | undefined) {
  Object.defineProperty(navigator, 'clipboard', { value: clipboard, configurable: true });
}

function setExecCommand(execCommand: (command: string) => boolean) {
  Object.defineProperty(document, 'execCommand', { value: execCommand, configurable: true });
}

function setNavigatorShare(share: Navigator['share'] | undefined) {
  Object.defineProperty(navigator, 'share', { value: share, configurable: true });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'clipboard');
  Reflect.deleteProperty(navigator, 'share');
  Reflect.deleteProperty(document, 'execCommand');
});

function storeUser(user: unknown) {
  localStorage.setItem('user', JSON.stringify(user));
}

/** The page at its path, once its chunk (the link and its kit, or the refusal) is drawn. */
async function showLinkPage() {
  renderApp(path);
  await waitFor(() => expect(screen.getByRole('main')).not.toHaveAttribute('aria-busy'));
}

const linkBox = () =>
  screen.getByRole<HTMLTextAreaElement>('textbox', { name: arLinkPage.heading });
const copyButton = () => screen.getByRole('button', { name: arLinkPage.buttonCopy });
const picker = () => screen.getByRole<HTMLSelectElement>('combobox', { name: ar.fieldPackage });
const pick = (packageKey: PackageKey | '') =>
  fireEvent.change(picker(), { target: { value: packageKey } });
const freeTrialLink = (id: string) => `${location.origin}/register/marketer/${id}`;
const packageLink = (packageKey: PackageKey, id: string) =>
  `${location.origin}/register/register-client/${packageKey}/${id}`;

describe('the my-registration-link page', () => {
  it.each(['marketing', 'team_leader_marketing'])('shows a %s user their link', async (role) => {
    storeUser({ role, id: 42 });
    await showLinkPage();
    expect(screen.getByRole('heading', { name: arLinkPage.heading })).toBeInTheDocument();
    expect(linkBox()).toHaveValue(`${location.origin}/register/marketer/42`);
    expect(linkBox()).toHaveAttribute('readonly');
    expect(linkBox()).toHaveAttribute('dir', 'ltr');
    expect(screen.queryByText(ar.errorNotAuthorized)).not.toBeInTheDocument();
    expect(document.title).toBe(ar.titleMyLink(ar.brandDefault));
  });

  it('copies the link with the Clipboard API, then says so', async () => {
    storeUser({ role: 'marketing', id: 'm-7' });
    const writeText = vi.fn<Clipboard['writeText']>().mockResolvedValue();
    setNavigatorClipboard({ writeText });
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    await showLinkPage();

    fireEvent.click(copyButton());
    await waitFor(() => expect(alert).toHaveBeenCalledWith(arLinkPage.alertCopied));
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
    await showLinkPage();

    fireEvent.click(copyButton());
    await waitFor(() => expect(alert).toHaveBeenCalledWith(arLinkPage.alertCopied));
    expect(execCommand).toHaveBeenCalledWith('copy');
    expect(selected).toBe(`${location.origin}/register/marketer/9`);
  });

  it('does not claim a copy that failed, and leaves the link selected', async () => {
    storeUser({ role: 'marketing', id: 9 });
    setNavigatorClipboard(undefined);
    const execCommand = vi.fn(() => false);
    setExecCommand(execCommand);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    await showLinkPage();

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
  ])('shows only the refusal to %s', async (_, storedUser) => {
    if (storedUser !== null) localStorage.setItem('user', storedUser);
    await showLinkPage();
    expect(screen.getByRole('main').textContent).toBe(ar.errorNotAuthorized);
    expect(screen.queryByRole('heading')).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
  });

  it('follows a login or logout in another tab', async () => {
    await showLinkPage();
    expect(screen.getByText(ar.errorNotAuthorized)).toBeInTheDocument();
    storeUser({ role: 'marketing', id: 5 });
    fireEvent(window, new StorageEvent('storage', { key: 'user' }));
    expect(linkBox()).toHaveValue(`${location.origin}/register/marketer/5`);
  });
});

/**
 * The pixels of a PNG data URL as RGBA, for jsQR. jsdom draws no canvas, so the page's
 * qrcode runs its Node build, which writes the PNG itself: 8-bit RGB(A), not interlaced, with
 * any of PNG's five row filters. That is all this reads.
 */
function pngToRgba(dataUrl: string): { data: Uint8ClampedArray; width: number; height: number } {
  const prefix = 'data:image/png;base64,';
  expect(dataUrl.startsWith(prefix)).toBe(true);
  const png = Buffer.from(dataUrl.slice(prefix.length), 'base64');
  let width = 0;
  let height = 0;
  let channels = 0;
  const compressed: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      expect([body[8], body[12]]).toEqual([8, 0]); // bit depth 8, no interlacing
      channels = { 2: 3, 6: 4 }[body[9]!] ?? 0;
      expect(channels).not.toBe(0); // RGB or RGBA
    } else if (type === 'IDAT') {
      compressed.push(body);
    }
    at += 12 + length;
  }
  const rows = inflateSync(Buffer.concat(compressed));
  const stride = width * channels;
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = rows[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const upLeft = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      const estimate = left + up - upLeft;
      const [dLeft, dUp, dUpLeft] = [left, up, upLeft].map((v) => Math.abs(estimate - v));
      const paeth = dLeft! <= dUp! && dLeft! <= dUpLeft! ? left : dUp! <= dUpLeft! ? up : upLeft;
      const predictor = [0, left, up, (left + up) >> 1, paeth][filter!]!;
      pixels[y * stride + x] = (rows[y * (stride + 1) + 1 + x]! + predictor) & 0xff;
    }
  }
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data.set(pixels.subarray(i * channels, i * channels + 3), i * 4);
    data[i * 4 + 3] = channels === 4 ? pixels[i * channels + 3]! : 255;
  }
  return { data, width, height };
}

/**
 * The pixels of the QR code's SVG as RGBA, for jsQR: a white square of viewBox modules, with the
 * page's path of dark rectangles (one per run of modules, `M{x} {y}h{length}v1h-{length}z`), each
 * module 4 pixels wide.
 */
function svgToRgba(svg: Element): { data: Uint8ClampedArray; width: number; height: number } {
  const scale = 4;
  const size = Number(svg.getAttribute('viewBox')?.split(' ')[2]);
  const width = size * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  const path = svg.querySelector('path')?.getAttribute('d') ?? '';
  expect(path).toMatch(/^(M\d+ \d+h(\d+)v1h-\2z)+$/);
  for (const [, x, y, length] of path.matchAll(/M(\d+) (\d+)h(\d+)/g)) {
    for (let row = Number(y) * scale; row < (Number(y) + 1) * scale; row++) {
      for (
        let column = Number(x) * scale;
        column < (Number(x) + Number(length)) * scale;
        column++
      ) {
        data.fill(0, (row * width + column) * 4, (row * width + column) * 4 + 3);
      }
    }
  }
  return { data, width, height: width };
}

/** What a phone camera would read from the QR code drawn on the page, once it is drawn. */
async function scanDrawnQrCode(link: string): Promise<string | undefined> {
  const code = await screen.findByRole('img', { name: arLinkPage.altQrCode });
  // Wait until the code for this link replaced the one for the previous pick.
  return waitFor(() => {
    const { data, width, height } = svgToRgba(code);
    const read = jsQR(data, width, height)?.data;
    expect(read).toBe(link);
    return read;
  });
}

describe('the sharing kit of the link page', () => {
  it('offers the free trial, picked first, and the six packages', async () => {
    storeUser({ role: 'marketing', id: 42 });
    await showLinkPage();
    const options = Array.from(picker().options);
    expect(options.map((option) => option.text)).toEqual([
      ar.headingFreeTrial,
      ...packageKeys.map((key) => packageLabels[key]),
    ]);
    expect(picker().selectedOptions[0]?.text).toBe(ar.headingFreeTrial);
    expect(linkBox()).toHaveValue(freeTrialLink('42'));
  });

  it('shows the link of each package picked, and the free-trial link again', async () => {
    storeUser({ role: 'marketing', id: 42 });
    await showLinkPage();
    for (const packageKey of packageKeys) {
      pick(packageKey);
      expect(linkBox()).toHaveValue(packageLink(packageKey, '42'));
    }
    pick('');
    expect(linkBox()).toHaveValue(freeTrialLink('42'));
  });

  it('copies the picked link, then says so', async () => {
    storeUser({ role: 'marketing', id: 'm-7' });
    const writeText = vi.fn<Clipboard['writeText']>().mockResolvedValue();
    setNavigatorClipboard({ writeText });
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    await showLinkPage();

    pick('economy_portfolio');
    fireEvent.click(copyButton());
    await waitFor(() => expect(alert).toHaveBeenCalledWith(arLinkPage.alertCopied));
    expect(writeText).toHaveBeenCalledWith(packageLink('economy_portfolio', 'm-7'));
    expect(writeText.mock.invocationCallOrder[0]).toBeLessThan(alert.mock.invocationCallOrder[0]!);
  });

  it('draws a QR code that reads back as the shown link tagged utm_source=qr, pick after pick', async () => {
    storeUser({ role: 'marketing', id: 42 });
    await showLinkPage();
    const qr = (link: string) => `${link}?utm_source=qr`;
    expect(await scanDrawnQrCode(qr(freeTrialLink('42')))).toBe(qr(linkBox().value));
    pick('premium_reco');
    expect(await scanDrawnQrCode(qr(packageLink('premium_reco', '42')))).toBe(qr(linkBox().value));
    pick('');
    expect(await scanDrawnQrCode(qr(freeTrialLink('42')))).toBe(qr(linkBox().value));
  });

  it.each([
    ['', 'tasjeel-42-free-trial.png'],
    ['classic_reco', 'tasjeel-42-classic_reco.png'],
  ] as const)('downloads the drawn QR code as a PNG (pick "%s")', async (packageKey, fileName) => {
    storeUser({ role: 'marketing', id: 42 });
    const clicks: { download: string; href: string }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicks.push({ download: this.download, href: this.href });
    });
    await showLinkPage();
    pick(packageKey);
    const shown = packageKey === '' ? freeTrialLink('42') : packageLink(packageKey, '42');
    const link = `${shown}?utm_source=qr`;
    await scanDrawnQrCode(link);

    const download = screen.getByRole('button', { name: arLinkPage.buttonDownloadQr });
    expect(download).toBeEnabled();
    fireEvent.click(download);
    await waitFor(() => expect(clicks).toHaveLength(1));
    expect(clicks[0]?.download).toBe(fileName);
    const { data, width, height } = pngToRgba(clicks[0]?.href ?? '');
    expect(jsQR(data, width, height)?.data).toBe(link);
  });

  it('says so when the QR code cannot be drawn, and offers no download', async () => {
    vi.doMock('qrcode', () => {
      throw new Error('no chunk');
    });
    try {
      storeUser({ role: 'marketing', id: 42 });
      await showLinkPage();
      expect(await screen.findByText(arLinkPage.errorQrCode)).toBeInTheDocument();
      expect(screen.queryByRole('img')).not.toBeInTheDocument();
      expect(screen.getByRole('button', { name: arLinkPage.buttonDownloadQr })).toBeDisabled();
      // The link itself, the copy and the sharing do not depend on the QR code.
      expect(linkBox()).toHaveValue(freeTrialLink('42'));
    } finally {
      vi.doUnmock('qrcode');
    }
  });

  it('shares the picked link on WhatsApp with the invitation, tagged as from WhatsApp', async () => {
    storeUser({ role: 'marketing', id: 42 });
    await showLinkPage();
    const whatsApp = () => screen.getByRole('link', { name: arLinkPage.buttonShareWhatsApp });
    const sharedText = () => {
      const url = new URL(whatsApp().getAttribute('href') ?? '');
      expect(`${url.origin}${url.pathname}`).toBe('https://wa.me/');
      return url.searchParams.get('text');
    };
    expect(whatsApp()).toHaveAttribute('target', '_blank');
    expect(whatsApp()).toHaveAttribute('rel', 'noopener');

    const whatsAppTag = '?utm_source=whatsapp&utm_medium=referral';
    expect(sharedText()).toBe(
      arLinkPage.shareMessage(
        arLinkPage.shareInvitationFreeTrial,
        `${freeTrialLink('42')}${whatsAppTag}`,
      ),
    );
    pick('premium_portfolio');
    const link = `${packageLink('premium_portfolio', '42')}${whatsAppTag}`;
    const invitation = arLinkPage.shareInvitationPackage(packageLabels.premium_portfolio);
    expect(sharedText()).toBe(arLinkPage.shareMessage(invitation, link));
    expect(sharedText()).toContain(invitation);
    expect(sharedText()?.split(/\s/)).toContain(link);
  });

  it('opens the system share sheet with the picked link, tagged, where there is one', async () => {
    storeUser({ role: 'team_leader_marketing', id: 9 });
    const share = vi.fn<Navigator['share']>().mockResolvedValue();
    setNavigatorShare(share);
    await showLinkPage();

    fireEvent.click(screen.getByRole('button', { name: arLinkPage.buttonShare }));
    expect(share).toHaveBeenLastCalledWith({
      title: ar.titleGeneric(ar.brandDefault),
      text: arLinkPage.shareInvitationFreeTrial,
      url: `${freeTrialLink('9')}?utm_source=share`,
    });
    pick('classic_portfolio');
    fireEvent.click(screen.getByRole('button', { name: arLinkPage.buttonShare }));
    expect(share).toHaveBeenLastCalledWith({
      title: ar.titlePackage(packageLabels.classic_portfolio, ar.brandDefault),
      text: arLinkPage.shareInvitationPackage(packageLabels.classic_portfolio),
      url: `${packageLink('classic_portfolio', '9')}?utm_source=share`,
    });
  });

  it('says nothing when the share sheet is closed without sharing', async () => {
    storeUser({ role: 'marketing', id: 9 });
    const share = vi
      .fn<Navigator['share']>()
      .mockRejectedValue(new DOMException('closed', 'AbortError'));
    setNavigatorShare(share);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    await showLinkPage();

    fireEvent.click(screen.getByRole('button', { name: arLinkPage.buttonShare }));
    await waitFor(() => expect(share).toHaveBeenCalled());
    expect(alert).not.toHaveBeenCalled();
  });

  it('has no share button where the browser has no share sheet', async () => {
    storeUser({ role: 'marketing', id: 9 });
    await showLinkPage();
    expect(screen.queryByRole('button', { name: arLinkPage.buttonShare })).not.toBeInTheDocument();
  });
});
