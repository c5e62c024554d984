import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteAttribution } from '../domain/notes';
import type { VisitCounter } from './visits/visit-counter';

/** What the web build's dist/ssr/entry-server.js exports (src/web/entry-server.tsx). */
interface RenderModule {
  render(
    url: string,
    options: { origin: string },
  ): { html: string; head: string; status: 200 | 404; form?: RouteAttribution };
}

export interface PagesOptions {
  build: Build;
  siteUrl: string | undefined;
  /** The origin of link previews' absolute URLs; without it, the request's own. */
  publicUrl: string | undefined;
  visits: VisitCounter;
}

const immutable = 'public, max-age=31536000, immutable';

export type Build = Awaited<ReturnType<typeof loadBuild>>;

// The CSP sources of the template's inline scripts: the web build inlines the one that starts
// the app (vite.config.ts), and a browser runs it only if its hash is in the policy.
function inlineScriptHashes(template: string): string[] {
  const inlineScripts = template.matchAll(/<script\b(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g);
  return Array.from(
    inlineScripts,
    ([, text = '']) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`,
  );
}

/** The built pages: the template, the server renderer, and the hashes the CSP must allow. */
export async function loadBuild(distDir: string) {
  const webDir = join(distDir, 'web');
  const entry = join(distDir, 'ssr', 'entry-server.js');
  let template: string;
  let module: Partial<RenderModule>;
  try {
    template = await readFile(join(webDir, 'index.html'), 'utf8');
    module = (await import(/* @vite-ignore */ pathToFileURL(entry).href)) as Partial<RenderModule>;
  } catch (error) {
    throw new Error(`The pages are not built in ${distDir}; run \`npm run build\` first.`, {
      cause: error,
    });
  }
  const { render } = module;
  if (typeof render !== 'function') throw new Error(`${entry} does not export render(url)`);
  if (!template.includes('<!--app-head-->') || !template.includes('<!--app-html-->')) {
    throw new Error(`${webDir}/index.html lacks the <!--app-head--> or <!--app-html--> slot`);
  }
  return { webDir, template, render, scriptHashes: inlineScriptHashes(template) };
}

/** The built pages under /register/: static assets, and every other path server-rendered. */
export async function pages(
  app: FastifyInstance,
  { build, siteUrl, publicUrl, visits }: PagesOptions,
) {
  const { webDir, template, render } = build;
  // The form a page showed, until its response is sent and the visit can be counted.
  const formOf = new WeakMap<FastifyRequest, RouteAttribution>();

  // Static files may be answered brotli or gzip, so caches must key on Accept-Encoding.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('vary', 'Accept-Encoding');
  });

  await app.register(fastifyStatic, {
    root: webDir,
    prefix: '/register/',
    // One route per file found at start-up, so that every other path reaches the renderer.
    wildcard: false,
    index: false,
    // index.html is the template, never served raw; .br and .gz are found by preCompressed.
    globIgnore: ['index.html', '**/*.br', '**/*.gz'],
    preCompressed: true,
    cacheControl: false,
    setHeaders: (response, path) => {
      // Vite puts content-hashed names under assets/, so they never change; the rest may.
      const hashed = relative(webDir, path).startsWith(`assets${sep}`);
      response.setHeader('cache-control', hashed ? immutable : 'no-cache');
      // The link-preview image is shown by other sites' pages too (web chat clients).
      if (relative(webDir, path) === 'og-image.png') {
        response.setHeader('cross-origin-resource-policy', 'cross-origin');
      }
    },
  });

  async function renderPage(request: FastifyRequest, reply: FastifyReply) {
    // A missing script or stylesheet is a plain 404, not an HTML page.
    if (request.url.startsWith('/register/assets/')) return reply.callNotFound();
    const origin = publicUrl ?? `${request.protocol}://${request.host}`;
    const { html, head, status, form } = render(request.url, { origin });
    if (form !== undefined) formOf.set(request, form);
    // Functions as replacements, so a '$&' in the page is not read as a pattern.
    const page = template
      .replace('<!--app-head-->', () => head)
      .replace('<!--app-html-->', () => html);
    return reply
      .code(status)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(page);
  }

  // A visit is a form page sent whole (not HEAD, not an error), counted once it is sent, so
  // that the page never waits on it; the counter leaves link-preview fetchers out.
  async function countVisit(request: FastifyRequest, reply: FastifyReply) {
    const form = formOf.get(request);
    if (form === undefined || request.method !== 'GET' || reply.statusCode !== 200) return;
    try {
      visits.record({ ...form, ip: request.ip, userAgent: request.headers['user-agent'] });
    } catch (error) {
      request.log.warn({ err: error }, 'a page visit could not be counted');
    }
  }
  app.get('/register', { onResponse: countVisit }, renderPage);
  app.get('/register/*', { onResponse: countVisit }, renderPage);

  // '/' is the provider's site; standalone, 'back to the site' lands on SITE_URL or the form.
  app.get('/', async (_request, reply) =>
    reply.redirect(siteUrl ?? '/register/register-client', 302),
  );
}
