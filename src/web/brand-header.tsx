import { ar } from '../domain/catalogue/shared';
import { privacyVersionField } from '../domain/form-fields';
import { useBrand } from './brand';

// The logo's box in CSS pixels: as tall as a line of the header, and never wide enough to be
// the page's largest element (its LCP), whatever the file's own size.
const logoHeight = 32;
const logoMaxWidth = 128;

function logoBox({ width, height }: { width: number; height: number }) {
  const wide = Math.round((logoHeight * width) / height);
  return wide <= logoMaxWidth
    ? { width: wide, height: logoHeight }
    : { width: logoMaxWidth, height: Math.max(1, Math.round((logoMaxWidth * height) / width)) };
}

/**
 * The banner every screen but the plain 404 carries: the logo and the provider's name, linked to
 * its site when SITE_URL is set. The logo's box is sized from the file, so nothing moves when it
 * loads; its alt is empty, as the name beside it says who it is. `wide`: above the programme's
 * card, wider than a form's, its content lines up with that card's edge.
 */
export function BrandHeader({ wide = false }: { wide?: boolean }) {
  const { name, logo, siteUrl } = useBrand();
  const content = (
    <>
      {logo !== undefined && (
        <img className="brand-logo" src={logo.src} alt="" {...logoBox(logo)} decoding="async" />
      )}
      <span className="brand-name">{name}</span>
    </>
  );
  return (
    <header className={wide ? 'brand wide' : 'brand'}>
      {siteUrl === undefined ? (
        <span className="brand-link">{content}</span>
      ) : (
        <a className="brand-link" href={siteUrl}>
          {content}
        </a>
      )}
    </header>
  );
}

/** The licence line under the card, when BRAND_LICENCE is set. */
export function LicenceLine() {
  const { licence } = useBrand();
  return licence === undefined ? null : <p className="licence">{ar.licence(licence)}</p>;
}

/**
 * The notice at collection under the form's button, when PRIVACY_URL is set: the policy opens
 * in a new tab, so that what was typed stays in the form. With it, a hidden field holds the
 * notice's version (PRIVACY_VERSION, '' for none), which the form sends as the one it showed.
 */
export function PrivacyNotice() {
  const { privacyUrl, privacyVersion } = useBrand();
  return privacyUrl === undefined ? null : (
    <p className="privacy">
      {`${ar.privacyNotice} `}
      <a href={privacyUrl} target="_blank" rel="noopener">
        {ar.privacyLink}
      </a>
      <input type="hidden" name={privacyVersionField} value={privacyVersion ?? ''} />
    </p>
  );
}
