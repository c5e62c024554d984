import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import type { RouteAttribution } from '../domain/notes';
import { App } from './app';
import { pageHead } from './head';
import { basename, matchScreen } from './routes';

export interface Rendered {
  html: string;
  head: string;
  status: 200 | 404;
  /** On a form route, its package and marketer (what the server counts a visit for). */
  form?: RouteAttribution;
}

export interface RenderOptions {
  /** The site's public origin (https://host[:port]): link previews need absolute URLs. */
  origin?: string;
}

/** The server's contract: url is the request's path and query, /register prefix included. */
export function render(url: string, { origin = '' }: RenderOptions = {}): Rendered {
  const screen = matchScreen(url, basename);
  const html = renderToString(
    <StrictMode>
      <App location={url} />
    </StrictMode>,
  );
  return {
    html,
    head: pageHead(screen, url, origin),
    status: screen.kind === 'notFound' ? 404 : 200,
    ...(screen.kind === 'form' && {
      form: { packageName: screen.packageName, marketerId: screen.marketerId },
    }),
  };
}
