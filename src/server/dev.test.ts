import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arForm } from '../domain/catalogue/form';
import { ar } from '../domain/catalogue/shared';
import { packageLabel } from '../domain/packages';
import { buildPayload } from '../domain/registration';
import { sampleBrand, sampleBrandEnv } from '../../testing/sample-brand';
import { startDevServer } from './dev';

// `npm run dev` must answer every route of the product as production does, whatever the source
// files are called: a source file named like a route (src/web/register-client.ts, since
// renamed) once shadowed /register/register-client.
describe('the development server', () => {
  let dir: string;
  let origin: string;
  let server: Awaited<ReturnType<typeof startDevServer>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tasjeel-dev-'));
    server = await startDevServer({
      PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, 'dev.db')}`,
      LOG_LEVEL: 'silent',
      REDIS_URL: '',
    });
    origin = await server.app.listen({ port: 0, host: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    await server?.app.close();
    await rm(dir, { recursive: true, force: true });
  });

  // The page's heading as React writes it: the package label in a box of its own.
  const heading = (label: string) =>
    `${arForm.headingPrefix}<!-- --> <span class="heading-label">${label}</span>`;
  const free = heading(ar.headingFreeTrial);
  const premium = heading(packageLabel('premium_reco'));
  it.each([
    ['/register/register-client', 200, `<h1 id="heading">${free}</h1>`],
    ['/register/register-client/premium_reco', 200, `<h1 id="heading">${premium}</h1>`],
    ['/register/register-client/premium_reco/42', 200, `<h1 id="heading">${premium}</h1>`],
    ['/register/marketer/42', 200, `<h1 id="heading">${free}</h1>`],
    ['/register/marketer/a.b', 200, `<h1 id="heading">${free}</h1>`],
    ['/register/my-registration-link', 200, `<title>${ar.titleMyLink(ar.brandDefault)}</title>`],
    ['/register/program', 200, `<title>${ar.titleProgram(ar.brandDefault)}</title>`],
    ['/register/entry-client', 404, ar.notFound],
    ['/register/nothing-here', 404, ar.notFound],
  ])('answers %s with the page', async (path, status, content) => {
    const response = await fetch(`${origin}${path}`);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain(content);
  });

  it('serves the page modules and takes sign-ups on the same port', async () => {
    const script = await fetch(`${origin}/register/entry-client.tsx`);
    expect(script.headers.get('content-type')).toMatch(/javascript/);

    const response = await fetch(`${origin}/api/external-register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(buildPayload({ name: 'سارة', email: '', phone: '966512345678' }, {})),
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    expect((await server.services.registrations.list()).map((row) => row.id)).toEqual([id]);
  });
});

// The pages' own render (src/web) through the whole server: what a visitor and a link-preview
// fetcher receive, with each brand variable and without (src/web/entry-server.test.tsx has the
// details of each).
describe('the provider, read at start and rendered from the sources', () => {
  let dir: string;
  const servers: Awaited<ReturnType<typeof startDevServer>>[] = [];

  async function page(env: Record<string, string>, path = '/register/register-client') {
    const server = await startDevServer({
      PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, `dev-${servers.length}.db`)}`,
      LOG_LEVEL: 'silent',
      REDIS_URL: '',
      SITE_URL: '',
      ...env,
    });
    servers.push(server);
    const origin = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const response = await fetch(`${origin}${path}`);
    return { origin, html: await response.text() };
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tasjeel-dev-brand-'));
  });
  afterAll(async () => {
    for (const server of servers) await server.app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names the default provider alone when nothing is set', async () => {
    const { html } = await page({});
    expect(html).toContain(`<title>${ar.titleGeneric(ar.brandDefault)}</title>`);
    expect(html).toContain(`<meta property="og:site_name" content="${ar.brandDefault}" />`);
    expect(html).toContain(
      `<header class="brand"><span class="brand-link"><span class="brand-name">${ar.brandDefault}</span></span></header>`,
    );
    expect(html).not.toMatch(/<img|class="licence"/);
  }, 60_000);

  it('names the provider, draws its logo and licence, and links to SITE_URL', async () => {
    const { origin, html } = await page({ ...sampleBrandEnv, SITE_URL: sampleBrand.siteUrl });
    expect(html).toContain(`<title>${ar.titleGeneric(sampleBrand.name)}</title>`);
    expect(html).toContain(`<meta property="og:site_name" content="${sampleBrand.name}" />`);
    const header = /<header class="brand">.*?<\/header>/.exec(html)?.[0] ?? '';
    expect(header).toContain(`<a class="brand-link" href="${sampleBrand.siteUrl}">`);
    expect(header).toContain(`<span class="brand-name">${sampleBrand.name}</span>`);
    expect(html).toContain(`<p class="licence">${ar.licence(sampleBrand.licence)}</p>`);
    // 120x40 in the file, so 96x32 on the page, whatever the browser makes of the file.
    const logo = /<img class="brand-logo" src="([^"]+)" alt="" width="96" height="32"/.exec(header);
    const file = await fetch(`${origin}${logo?.[1]}`);
    expect(file.headers.get('content-type')).toBe('image/svg+xml');
  }, 60_000);
});
