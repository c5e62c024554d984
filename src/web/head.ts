import { arPreview } from '../domain/catalogue';
import { basePath, myLinkPath, registrationPath } from '../domain/links';
import { packageLabel } from '../domain/packages';
import type { Brand } from '../domain/render-contract';
import { brandMeta } from './brand';
import type { Screen } from './routes';

/** public/og-image.png, drawn by scripts/og-image.ts at the size WhatsApp and X show large. */
export const previewImage = { path: `${basePath}/og-image.png`, width: 1200, height: 630 };

function description(screen: Screen): string {
  if (screen.kind !== 'form') return arPreview.description;
  return screen.packageName === undefined
    ? arPreview.descriptionFreeTrial
    : arPreview.descriptionPackage(packageLabel(screen.packageName));
}

/** A screen's own address: the same link however it was typed (case, trailing slash, query). */
function canonicalPath(screen: Screen, requestPath: string): string {
  switch (screen.kind) {
    case 'form':
      return registrationPath(screen);
    case 'myLink':
      return `${basePath}${myLinkPath}`;
    case 'notFound':
      return requestPath;
  }
}

/**
 * The head of a server-rendered page: its title and description, the link-preview tags
 * that WhatsApp, Telegram and X read without running JavaScript (https://ogp.me,
 * https://developer.x.com/en/docs/x-for-websites/cards/overview/markup), and the brand for the
 * client to hydrate with. `origin` makes og:url and og:image absolute, as those crawlers
 * require. The preview image is the same for every provider: it names none.
 */
export function pageHead(screen: Screen, url: string, origin: string, brand: Brand): string {
  const path = url.replace(/[?#].*$/, '');
  const text = description(screen);
  const meta: [attribute: 'name' | 'property', key: string, content: string | number][] = [
    ['name', 'description', text],
    ['property', 'og:site_name', brand.name],
    ['property', 'og:type', 'website'],
    ['property', 'og:locale', 'ar_SA'],
    ['property', 'og:title', screen.title],
    ['property', 'og:description', text],
    ['property', 'og:url', `${origin}${canonicalPath(screen, path)}`],
    ['property', 'og:image', `${origin}${previewImage.path}`],
    ['property', 'og:image:type', 'image/png'],
    ['property', 'og:image:width', previewImage.width],
    ['property', 'og:image:height', previewImage.height],
    ['property', 'og:image:alt', arPreview.imageAlt],
    ['name', 'twitter:card', 'summary_large_image'],
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
