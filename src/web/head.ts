import { arNotifications } from '../domain/catalogue/notifications';
import { arPreview } from '../domain/catalogue/preview';
import { ar } from '../domain/catalogue/shared';
import {
  basePath,
  myLinkPath,
  programMarketerPage,
  programPath,
  registrationPath,
} from '../domain/links';
import { isPackageKey, packageLabel } from '../domain/packages';
import type { Brand } from '../domain/render-contract';
import { brandMeta } from './brand';
import type { Screen } from './routes';

/** public/og-image.png, drawn by scripts/og-image.ts at the size WhatsApp and X show large. */
export const previewImage = { path: `${basePath}/og-image.png`, width: 1200, height: 630 };

// A package key of the right shape that the catalogue does not know is shown on the page (a
// package added later), but its preview speaks of the free trial: a crafted key such as
// call_me_now never reaches a WhatsApp preview.
function previewed(screen: Screen): boolean {
  return (
    screen.kind === 'form' && screen.packageName !== undefined && isPackageKey(screen.packageName)
  );
}

function description(screen: Screen): string {
  if (screen.kind === 'confirmNotifications') return arNotifications.confirmLead;
  if (screen.kind === 'stopNotifications') return arNotifications.stop[screen.mailKind].lead;
  if (screen.kind !== 'form') return arPreview.description;
  return previewed(screen) && screen.packageName !== undefined
    ? arPreview.descriptionPackage(packageLabel(screen.packageName))
    : arPreview.descriptionFreeTrial;
}

/**
 * The pages an e-mail's links open: their address carries a person's token, so it is in no
 * preview, and search engines are asked to index none of them.
 */
type MailLinkScreen = Extract<Screen, { kind: 'confirmNotifications' | 'stopNotifications' }>;

function isMailLink(screen: Screen): screen is MailLinkScreen {
  return screen.kind === 'confirmNotifications' || screen.kind === 'stopNotifications';
}

/** A screen's own address: the same link however it was typed (case, trailing slash, query). */
function canonicalPath(screen: Exclude<Screen, { kind: 'notFound' } | MailLinkScreen>): string {
  switch (screen.kind) {
    case 'form':
      return registrationPath(screen);
    case 'myLink':
      return `${basePath}${myLinkPath}`;
    case 'program':
      return `${basePath}${programPath}`;
    case 'programMarketer':
      return programMarketerPage(screen.marketingId);
  }
}

/**
 * The head of a server-rendered page: its title and description, the link-preview tags
 * that WhatsApp, Telegram and X read without running JavaScript (https://ogp.me,
 * https://developer.x.com/en/docs/x-for-websites/cards/overview/markup), and the brand for the
 * client to hydrate with. `origin` makes og:url and og:image absolute, as those crawlers
 * require. The preview image is the same for every provider: it names none.
 */
export function pageHead(screen: Screen, origin: string, brand: Brand): string {
  const text = description(screen);
  type Meta = [attribute: 'name' | 'property', key: string, content: string | number];
  // A 404 has no preview: its address is whatever was asked, text someone wants shown included.
  // Nor has an e-mail's page: its address is a person's token.
  const preview: Meta[] =
    screen.kind === 'notFound' || isMailLink(screen)
      ? []
      : [
          ['property', 'og:site_name', brand.name],
          ['property', 'og:type', 'website'],
          ['property', 'og:locale', 'ar_SA'],
          [
            'property',
            'og:title',
            screen.kind === 'form' && screen.packageName !== undefined && !previewed(screen)
              ? ar.titleGeneric(brand.name)
              : screen.title,
          ],
          ['property', 'og:description', text],
          ['property', 'og:url', `${origin}${canonicalPath(screen)}`],
          ['property', 'og:image', `${origin}${previewImage.path}`],
          ['property', 'og:image:type', 'image/png'],
          ['property', 'og:image:width', previewImage.width],
          ['property', 'og:image:height', previewImage.height],
          ['property', 'og:image:alt', arPreview.imageAlt],
          ['name', 'twitter:card', 'summary_large_image'],
        ];
  const meta: Meta[] = [
    ['name', 'description', text],
    ...(isMailLink(screen) ? [['name', 'robots', 'noindex'] satisfies Meta] : []),
    ...preview,
    // Read by entry-client.tsx (brand.tsx), not by crawlers.
    ['name', brandMeta, JSON.stringify(brand)],
  ];
  return [
    `<title>${escapeHtml(screen.title)}</title>`,
    ...meta.map(
      ([attribute, key, content]) =>
        `<meta ${attribute}="${key}" content="${escapeHtml(String(content))}" />`,
    ),
  ].join('\n');
}

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => entities[char] ?? char);
}
