import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface RenderModule {
  render(url: string): { html: string; head: string };
}

/** Where the limit page is served: a path no route of the app uses. */
export const jsFreePath = '/register/bench-js-free/package-form.html';

/**
 * Writes the limit of the page bench into a copy of the build: the server's own rendering of
 * `url` (the same template, markup, stylesheet and font links), with every script and module
 * preload removed. It must exist before the server starts, which lists static files then.
 */
export async function writeJsFreePage(distDir: string, url: string): Promise<void> {
  const template = await readFile(join(distDir, 'web', 'index.html'), 'utf8');
  const entry = pathToFileURL(join(distDir, 'ssr', 'entry-server.js')).href;
  const { render } = (await import(entry)) as RenderModule;
  const { html, head } = render(url);
  const page = template
    .replace('<!--app-head-->', () => head)
    .replace('<!--app-html-->', () => html)
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>\s*/g, '');
  if (/<script\b|modulepreload/.test(page))
    throw new Error('the JS-free page still loads a script');
  const file = join(distDir, 'web', jsFreePath.slice('/register/'.length));
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, page);
}
