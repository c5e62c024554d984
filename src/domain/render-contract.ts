import type { FormValues } from './registration';
import type { MailLinkOutcome } from './notifications';

/**
 * What a form shows when the server answers a form post made without JavaScript (or before the
 * app had loaded): the texts are the catalogue's, picked by the server.
 */
export interface FormState {
  /** The values to show in the fields: what was typed, or empty after a sign-up. */
  values: FormValues;
  /** The fields to mark invalid, tied to the error line. */
  invalid: readonly (keyof FormValues)[];
  /** The red error line, or ''. */
  error: string;
  /** The green success line, or ''. */
  success: string;
}

/**
 * The provider the pages name, as the server's environment sets it at start (BRAND_NAME,
 * BRAND_LOGO, BRAND_LICENCE, SITE_URL, PRIVACY_URL, PRIVACY_VERSION), so that one build serves
 * any provider.
 */
export interface Brand {
  /** In the titles, the link previews and the header. */
  name: string;
  /** The logo's address under /register/ and its size in pixels, as read from the file. */
  logo?: { src: string; width: number; height: number } | undefined;
  /** The Capital Market Authority licence number: the line under the card. */
  licence?: string | undefined;
  /** The provider's site, which the header's name links to. */
  siteUrl?: string | undefined;
  /** The provider's privacy policy: the notice under the form's button links to it (PDPL). */
  privacyUrl?: string | undefined;
  /** Which version of it: the form sends it with a sign-up, as the notice it showed. */
  privacyVersion?: string | undefined;
}

/** What the server needs to render a page: the request's path and query, and the site's origin. */
export interface RenderOptions {
  /** The site's public origin (https://host[:port]): link previews need absolute URLs. */
  origin: string;
  /** The provider the page names: its header, titles, previews and licence line. */
  brand: Brand;
  /** On a form route, what the server made of a form post; else the empty form. */
  form?: FormState;
  /** The server's signed stamp of the time it served the page, for its form to send back. */
  formStamp?: string;
  /** On an e-mail's confirmation or unsubscribe page, what the server made of its button. */
  mailLink?: MailLinkOutcome;
}

/**
 * One server-rendered page: the body and the head's tags. The server matches the route itself
 * (src/domain/routes.ts) for the status, the visit and a form post.
 */
export interface RenderedPage {
  html: string;
  head: string;
}

/**
 * The contract between the web build's server renderer (src/web/entry-server.tsx, built to
 * dist/ssr/entry-server.js) and the server that calls it (src/server/pages.ts).
 */
export type RenderPage = (url: string, options: RenderOptions) => RenderedPage;
