import type { BitMatrix } from 'qrcode';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { arLinkPage } from '../domain/catalogue/link-page';
import { ar } from '../domain/catalogue/shared';
import { type PackageKey, packageKeys, packageLabels } from '../domain/packages';
import { useBrand } from './brand';
import { LicenceLine } from './brand-header';
import {
  channelLink,
  linkMarketingId,
  marketerLink,
  qrFileName,
  whatsAppShareUrl,
} from './marketer-link';
import { NotificationsSection } from './notifications-section';
import { platformTokenKey } from './platform-token';

// Its own chunk, fetched only when the server says the numbers are on: the form pages never
// carry it, and the link page without the feature does not load it either.
const MarketerStatsSection = lazy(() =>
  import('./marketer-stats-section').then((module) => ({ default: module.MarketerStatsSection })),
);

/** The link page once the stored user is known: the link and its kit, or the refusal. */
export function LinkScreen({ storedUser }: { storedUser: string | null }) {
  const marketingId = linkMarketingId(storedUser);
  return (
    <main className="page">
      {marketingId === null ? (
        <p className="card">{ar.errorNotAuthorized}</p>
      ) : (
        <>
          <LinkCard marketingId={marketingId} />
          <MarketerStats />
          <Notifications />
        </>
      )}
      <LicenceLine />
    </main>
  );
}

function MarketerStats() {
  const storageKey = platformTokenKey();
  if (storageKey === null) return null;
  return (
    <Suspense fallback={null}>
      <MarketerStatsSection storageKey={storageKey} />
    </Suspense>
  );
}

/** The e-mails the marketer asks for: only with the platform's token, and when the server sends e-mails. */
function Notifications() {
  const storageKey = platformTokenKey();
  return storageKey === null ? null : <NotificationsSection storageKey={storageKey} />;
}

function LinkCard({ marketingId }: { marketingId: string }) {
  // No package means the free trial: the first link is {origin}/register/marketer/{id}.
  const [packageKey, setPackageKey] = useState<PackageKey>();
  const box = useRef<HTMLTextAreaElement>(null);
  const { name: brand } = useBrand();
  const link = marketerLink(window.location.origin, marketingId, packageKey);
  const label = packageKey === undefined ? undefined : packageLabels[packageKey];
  const invitation =
    label === undefined
      ? arLinkPage.shareInvitationFreeTrial
      : arLinkPage.shareInvitationPackage(label);

  async function copy() {
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      // No Clipboard API on plain http (navigator.clipboard is undefined) or permission refused.
      box.current?.select();
      if (!document.execCommand('copy')) return;
    }
    window.alert(arLinkPage.alertCopied);
  }

  function share() {
    const title = label === undefined ? ar.titleGeneric(brand) : ar.titlePackage(label, brand);
    // The user closing the share sheet rejects with an AbortError: nothing to say about it.
    navigator.share({ title, text: invitation, url: channelLink(link, 'share') }).catch(() => {});
  }

  return (
    <div className="card">
      <h1 id="heading">{arLinkPage.heading}</h1>
      <label htmlFor="package">{ar.fieldPackage}</label>
      <select
        id="package"
        value={packageKey ?? ''}
        onChange={(event) => setPackageKey(packageKeys.find((key) => key === event.target.value))}
      >
        <option value="">{ar.headingFreeTrial}</option>
        {packageKeys.map((key) => (
          <option key={key} value={key}>
            {packageLabels[key]}
          </option>
        ))}
      </select>
      {/* A textarea wraps, so the marketer id at the end of a long link stays visible. */}
      <textarea
        ref={box}
        className="link"
        aria-labelledby="heading"
        dir="ltr"
        rows={2}
        readOnly
        value={link}
        onFocus={(event) => event.currentTarget.select()}
      />
      <div className="actions">
        <button type="button" onClick={copy}>
          {arLinkPage.buttonCopy}
        </button>
        <a
          className="button secondary"
          href={whatsAppShareUrl(
            arLinkPage.shareMessage(invitation, channelLink(link, 'whatsapp')),
          )}
          target="_blank"
          rel="noopener"
        >
          {arLinkPage.buttonShareWhatsApp}
        </a>
        {/* The system share sheet exists on most phones, rarely on desktops. */}
        {typeof navigator.share === 'function' && (
          <button type="button" className="secondary" onClick={share}>
            {arLinkPage.buttonShare}
          </button>
        )}
      </div>
      <QrCode link={channelLink(link, 'qr')} fileName={qrFileName(marketingId, packageKey)} />
    </div>
  );
}

// The quiet zone around a QR code, in modules: 4 is what the standard asks and qrcode draws.
const quietZone = 4;

/**
 * The dark modules of a QR code as one SVG path, a rectangle per run of dark modules in a row,
 * in a square of `size` modules with its quiet zone.
 */
function qrCodePath(modules: BitMatrix): { size: number; path: string } {
  const runs: string[] = [];
  for (let row = 0; row < modules.size; row++) {
    for (let column = 0; column < modules.size;) {
      const start = column;
      while (column < modules.size && modules.get(row, column)) column++;
      const length = column - start;
      if (length > 0) runs.push(`M${start + quietZone} ${row + quietZone}h${length}v1h-${length}z`);
      else column++;
    }
  }
  return { size: modules.size + 2 * quietZone, path: runs.join('') };
}

type DrawnQrCode = { link: string; code: { size: number; path: string } | null };

function QrCode({ link, fileName }: { link: string; fileName: string }) {
  const [drawn, setDrawn] = useState<DrawnQrCode>();

  useEffect(() => {
    let current = true;
    // Loaded only here, in its own chunk, so the form's JavaScript does not carry it. Drawn as
    // an SVG path: a canvas and its PNG encoding held the main thread for a long task, and an
    // image painted late was the page's LCP. The PNG is made for a download only.
    import('qrcode')
      .then(({ create }) => qrCodePath(create(link).modules))
      .then(
        (code) => current && setDrawn({ link, code }),
        () => current && setDrawn({ link, code: null }),
      );
    return () => {
      current = false;
    };
  }, [link]);

  // A code drawn for the link before the last pick is never shown or saved.
  const code = drawn?.link === link ? drawn.code : undefined;

  async function download() {
    let dataUrl: string;
    try {
      const { toDataURL } = await import('qrcode');
      dataUrl = await toDataURL(link, { width: 512 });
    } catch {
      setDrawn({ link, code: null });
      return;
    }
    const anchor = document.createElement('a');
    anchor.href = dataUrl;
    anchor.download = fileName;
    // Firefox saves only from an anchor that is in the document.
    document.body.append(anchor);
    anchor.click();
    anchor.remove();
  }

  return (
    <div className="qr">
      {code ? (
        <svg
          className="qr-code"
          role="img"
          aria-label={arLinkPage.altQrCode}
          viewBox={`0 0 ${code.size} ${code.size}`}
          shapeRendering="crispEdges"
        >
          <rect width={code.size} height={code.size} fill="#fff" />
          <path d={code.path} />
        </svg>
      ) : code === null ? (
        <p className="message error">{arLinkPage.errorQrCode}</p>
      ) : (
        <div className="qr-code" aria-busy="true" />
      )}
      <button type="button" className="secondary" disabled={!code} onClick={download}>
        {arLinkPage.buttonDownloadQr}
      </button>
    </div>
  );
}
