import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { basePath } from '../domain/links';
import type { RenderedPage, RenderOptions } from '../domain/render-contract';
import { App } from './app';
import { pageHead } from './head';
import { matchScreen } from './routes';

/** The server's renderer: url is the request's path and query, /register prefix included. */
export function render(url: string, { origin }: RenderOptions = { origin: '' }): RenderedPage {
  const screen = matchScreen(url, basePath);
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
      form: { packageName: screen.packageName, marketingId: screen.marketingId },
    }),
  };
}
