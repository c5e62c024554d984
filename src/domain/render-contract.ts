import type { RouteAttribution } from './notes';

/** What the server needs to render a page: the request's path and query, and the site's origin. */
export interface RenderOptions {
  /** The site's public origin (https://host[:port]): link previews need absolute URLs. */
  origin: string;
}

/** One server-rendered page: the body, the head's tags and the status to answer with. */
export interface RenderedPage {
  html: string;
  head: string;
  status: 200 | 404;
  /** On a form route, its package and marketer (what the server counts a visit for). */
  form?: RouteAttribution;
}

/**
 * The contract between the web build's server renderer (src/web/entry-server.tsx, built to
 * dist/ssr/entry-server.js) and the server that calls it (src/server/pages.ts).
 */
export type RenderPage = (url: string, options: RenderOptions) => RenderedPage;
