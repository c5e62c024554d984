import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { basePath } from '../domain/links';
import type { RenderedPage, RenderOptions } from '../domain/render-contract';
import { App } from './app';
import { defaultBrand } from './brand';
import { pageHead } from './head';
import { MailLinkScreen } from './mail-link-screen';
import { matchScreen } from './routes';

/** The server's renderer: url is the request's path and query, /register prefix included. */
export function render(
  url: string,
  { origin, brand, form, formStamp, mailLink }: RenderOptions = { origin: '', brand: defaultBrand },
): RenderedPage {
  const screen = matchScreen(url, brand.name, basePath);
  const html = renderToString(
    <StrictMode>
      <App
        location={url}
        brand={brand}
        form={form}
        formStamp={formStamp}
        mailLink={mailLink}
        mailLinkScreen={MailLinkScreen}
      />
    </StrictMode>,
  );
  return { html, head: pageHead(screen, origin, brand) };
}
