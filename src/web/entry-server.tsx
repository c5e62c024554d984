import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { App } from './app';
import { basename, matchScreen } from './routes';

export interface Rendered {
  html: string;
  head: string;
  status: 200 | 404;
}

/** The server's contract: url is the request's path and query, /register prefix included. */
export function render(url: string): Rendered {
  const screen = matchScreen(url, basename);
  const html = renderToString(
    <StrictMode>
      <StaticRouter basename={basename} location={url}>
        <App />
      </StaticRouter>
    </StrictMode>,
  );
  return {
    html,
    head: `<title>${escapeHtml(screen.title)}</title>`,
    status: screen.kind === 'notFound' ? 404 : 200,
  };
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
