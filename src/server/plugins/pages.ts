import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { arForm } from '../../domain/catalogue/form';
import { proofOfWorkMeta } from '../../domain/form-fields';
import { basePath, signedUpParameter } from '../../domain/links';
import type { RouteAttribution } from '../../domain/notes';
import { marketerStatsMeta } from '../../domain/marketer-stats';
import type { MailLinkOutcome } from '../../domain/notifications';
import { utmFromQuery } from '../../domain/registration';
import type {
  Brand,
  FormState,
  RenderedPage,
  RenderOptions,
  RenderPage,
} from '../../domain/render-contract';
import { matchRoute } from '../../domain/routes';
import { logoSrc, type LogoFile } from '../brand-logo';
import type { NotificationsStore } from '../mail/notifications';
import type { Metrics } from '../metrics';
import { formRoutes, queryOf } from '../registrations/form-routes';
import { mailLinkRoutes } from './notifications';
import type { SignUpOptions } from '../registrations/sign-up';
import type { VisitCounter } from '../visits/visit-counter';

/**
 * Where the pages come from: the build (`loadBuild`) in production, Vite in development
 * (src/server/dev.ts). The same routes serve both, so a route answers alike in each.
 */
export interface PageSource {
  /** The CSP sources of the template's inline scripts. */
  scriptHashes: string[];
  /** Vite's development client adds <style> elements; a built page never has one. */
  inlineStyles: boolean;
  /** Serves the files under /register/ (scripts, styles, images). */
  registerFiles(app: FastifyInstance): Promise<void>;
  /** The page template, with its <!--app-head--> and <!--app-html--> slots. */
  template(url: string): Promise<string>;
  render(url: string, options: RenderOptions): Promise<RenderedPage>;
}

/** The pages, and what their form's posts need to sign up (the API's own options). */
export interface PagesOptions extends SignUpOptions {
  pages: PageSource;
  siteUrl: string | undefined;
  /** The origin of link previews' absolute URLs; without it, the request's own. */
  publicUrl: string | undefined;
  /** The provider every page names (BRAND_*), with its logo file when there is one. */
  brand: {
    name: string;
    logo: LogoFile | undefined;
    licence: string | undefined;
    privacyUrl: string | undefined;
    privacyVersion: string | undefined;
  };
  /** Set when marketers may see their numbers: the localStorage key of the platform's token. */
  marketerStatsStorageKey: string | undefined;
  visits: VisitCounter;
  metrics: Metrics | null;
  /** The database's Database.isUnavailable, for the form posts' refusals (refusals.ts). */
  isDatabaseUnavailable: (error: unknown) => boolean;
  /** Set when e-mails are offered: the posts of their links' pages confirm and stop them. */
  notifications?: NotificationsStore | undefined;
}

const immutable = 'public, max-age=31536000, immutable';

/** The CSP sources of a template's inline scripts: a browser runs one only if it is listed. */
export function inlineScriptHashes(template: string): string[] {
  const inlineScripts = template.matchAll(/<script\b(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g);
  return Array.from(
    inlineScripts,
    ([, text = '']) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`,
  );
}

/** The template must have both slots, or every page would be served without its content. */
export function checkTemplate(template: string, where: string): string {
  if (!template.includes('<!--app-head-->') || !template.includes('<!--app-html-->')) {
    throw new Error(`${where} lacks the <!--app-head--> or <!--app-html--> slot`);
  }
  return template;
}

/** The built pages in `distDir`: web/ (the template and files) and ssr/ (the renderer). */
export async function loadBuild(distDir: string): Promise<PageSource> {
  const webDir = join(distDir, 'web');
  const entry = join(distDir, 'ssr', 'entry-server.js');
  let template: string;
  let module: { render?: RenderPage };
  try {
    template = await readFile(join(webDir, 'index.html'), 'utf8');
    module = (await import(/* @vite-ignore */ pathToFileURL(entry).href)) as typeof module;
  } catch (error) {
    throw new Error(`The pages are not built in ${distDir}; run \`npm run build\` first.`, {
      cause: error,
    });
  }
  const { render } = module;
  if (typeof render !== 'function') throw new Error(`${entry} does not export render(url)`);
  checkTemplate(template, `${webDir}/index.html`);
  return {
    scriptHashes: inlineScriptHashes(template),
    inlineStyles: false,
    registerFiles: (app) => serveBuiltFiles(app, webDir),
    template: async () => template,
    render: async (url, options) => render(url, options),
  };
}

async function serveBuiltFiles(app: FastifyInstance, webDir: string) {
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
}

// The page after a sign-up posted without JavaScript (the form's post is redirected to it).
const signedUp: FormState = {
  values: { name: '', email: '', phone: '' },
  invalid: [],
  error: '',
  success: arForm.success,
};

/**
 * Serves the logo under /register/, named by its content's hash: cached for good, as the
 * build's assets are, and a new file is a new address. It is not the build's, so it sits
 * beside it rather than under assets/.
 */
function serveLogo(app: FastifyInstance, logo: LogoFile): Brand['logo'] {
  const src = logoSrc(logo);
  app.get(src, async (_request, reply) =>
    reply.header('cache-control', immutable).type(logo.type).send(logo.body),
  );
  return { src, width: logo.width, height: logo.height };
}

/**
 * GET /register/* (the files, and every other path server-rendered), POST on the form routes
 * (the form without JavaScript, registrations/form-routes.ts) and GET / (the provider's site).
 * A form page sent whole counts as a visit.
 */
export async function pagesPlugin(
  app: FastifyInstance,
  {
    pages,
    siteUrl,
    publicUrl,
    brand: provider,
    repository,
    proofOfWork,
    now,
    rateLimitPerMinute,
    evidence,
    marketerStatsStorageKey,
    visits,
    metrics,
    isDatabaseUnavailable,
    notifications,
  }: PagesOptions,
) {
  const brand: Brand = {
    name: provider.name,
    logo: provider.logo === undefined ? undefined : serveLogo(app, provider.logo),
    licence: provider.licence,
    siteUrl,
    privacyUrl: provider.privacyUrl,
    privacyVersion: provider.privacyVersion,
  };
  const signUpOptions = { repository, proofOfWork, now, rateLimitPerMinute, evidence };
  const proofOfWorkTag =
    proofOfWork === undefined ? '' : `<meta name="${proofOfWorkMeta}" content="on">`;
  // Tells the link page that the numbers are on, and where the platform keeps its token.
  const marketerStatsTag =
    marketerStatsStorageKey === undefined
      ? ''
      : `<meta name="${marketerStatsMeta}" content="${escapeAttribute(marketerStatsStorageKey)}">`;
  // The form a page showed, until its response is sent and the visit can be counted.
  const formOf = new WeakMap<FastifyRequest, RouteAttribution>();

  await pages.registerFiles(app);

  // Only http or https: a forwarded protocol is whatever the proxy was sent.
  const siteOrigin = (request: FastifyRequest) =>
    publicUrl ?? `${request.protocol === 'https' ? 'https' : 'http'}://${request.host}`;

  /**
   * The page at the request's URL: the template, filled with the render; after a post, what it
   * did (a form's state, or an e-mail link's outcome).
   */
  async function pageAt(request: FastifyRequest, form?: FormState, mailLink?: MailLinkOutcome) {
    const [template, rendered] = await Promise.all([
      pages.template(request.url),
      // Each page its own stamp: its form sends it back, for the fast flag (docs/flags.md).
      pages.render(request.url, {
        origin: siteOrigin(request),
        brand,
        form,
        formStamp: evidence.stamp(now()),
        ...(mailLink !== undefined && { mailLink }),
      }),
    ]);
    // Functions as replacements, so a '$&' in the page is not read as a pattern.
    return template
      .replace('<!--app-head-->', () => rendered.head + proofOfWorkTag + marketerStatsTag)
      .replace('<!--app-html-->', () => rendered.html);
  }

  async function renderPage(request: FastifyRequest, reply: FastifyReply) {
    // A missing script or stylesheet is a plain 404, not an HTML page.
    if (request.url.startsWith('/register/assets/')) return reply.callNotFound();
    const query = request.query as Record<string, unknown>;
    const route = matchRoute(request.url, basePath);
    const page = await pageAt(
      request,
      query[signedUpParameter] === undefined ? undefined : signedUp,
    );
    if (route.kind === 'form') {
      formOf.set(request, { packageName: route.packageName, marketingId: route.marketingId });
    }
    return reply
      .code(route.kind === 'notFound' ? 404 : 200)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(page);
  }

  // A visit is a form page sent whole (not HEAD, not an error), counted once it is sent, so
  // that the page never waits on it; the counter leaves link-preview fetchers out.
  async function countVisit(request: FastifyRequest, reply: FastifyReply) {
    const form = formOf.get(request);
    if (request.method === 'GET') countView(form, reply.statusCode);
    if (form === undefined || request.method !== 'GET' || reply.statusCode !== 200) return;
    try {
      const counted = visits.record({
        ...form,
        // Cleaned as the page cleans them for its sign-up, so that the two meet in the report.
        utm: utmFromQuery(queryOf(request)),
        ip: request.ip,
        userAgent: request.headers['user-agent'],
      });
      if (counted) metrics?.visits.inc();
    } catch (error) {
      request.log.warn({ err: error }, 'a page visit could not be counted');
    }
  }

  function countView(form: RouteAttribution | undefined, status: number) {
    if (metrics === null || (status !== 200 && status !== 404)) return;
    const screen =
      status === 404
        ? 'not_found'
        : form === undefined
          ? 'link_page'
          : form.packageName === undefined
            ? 'free_trial'
            : 'form_package';
    metrics.pageViews.inc({ screen });
  }
  app.get('/register', { onResponse: countVisit }, renderPage);
  app.get('/register/*', { onResponse: countVisit }, renderPage);
  await app.register(formRoutes, { ...signUpOptions, isDatabaseUnavailable, siteOrigin, pageAt });
  // POST on the e-mails' confirmation and unsubscribe pages: no origin check, their own types.
  if (notifications !== undefined) {
    await app.register(mailLinkRoutes, { notifications, now, pageAt, rateLimitPerMinute });
  }

  // '/' is the provider's site; standalone, 'back to the site' lands on SITE_URL or the form.
  app.get('/', async (_request, reply) =>
    reply.redirect(siteUrl ?? '/register/register-client', 302),
  );
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
