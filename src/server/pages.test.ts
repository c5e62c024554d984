import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ar } from '../domain/catalogue/shared';
import { sampleBrand, sampleBrandEnv } from '../../testing/sample-brand';
import {
  buildTestApp,
  fixtureBrand,
  fixtureForm,
  fixtureHead,
  fixtureOgUrl,
  fixtureScript,
  describeOnBackends,
} from '../../testing/server-test-helpers';

const asset = '/register/assets/app-abc123.js';

describeOnBackends('on $name', (backend) => {
  describe('static files under /register/', () => {
    it('serves hashed assets as immutable', async () => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({ url: asset });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/javascript/);
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.body).toBe(fixtureScript);
    });

    it('sends the pre-compressed brotli file when the browser accepts it, gzip otherwise', async () => {
      const { app } = await buildTestApp(backend);
      const brotli = await app.inject({ url: asset, headers: { 'accept-encoding': 'gzip, br' } });
      expect(brotli.headers['content-encoding']).toBe('br');
      expect(brotli.headers['content-type']).toMatch(/javascript/);
      expect(brotli.headers.vary).toContain('Accept-Encoding');
      expect(brotliDecompressSync(brotli.rawPayload).toString()).toBe(fixtureScript);

      const gzip = await app.inject({ url: asset, headers: { 'accept-encoding': 'gzip' } });
      expect(gzip.headers['content-encoding']).toBe('gzip');
    });

    it('marks files without a hash no-cache', async () => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({ url: '/register/favicon.svg' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-cache');
    });

    it('lets other sites show the link-preview image, and only that file', async () => {
      const { app } = await buildTestApp(backend);
      const image = await app.inject({ url: '/register/og-image.png' });
      expect(image.statusCode).toBe(200);
      expect(image.headers['content-type']).toBe('image/png');
      expect(image.headers['cross-origin-resource-policy']).toBe('cross-origin');
      const icon = await app.inject({ url: '/register/favicon.svg' });
      expect(icon.headers['cross-origin-resource-policy']).toBe('same-origin');
    });

    it('never serves the raw template or a missing asset as a page', async () => {
      const { app } = await buildTestApp(backend);
      const template = await app.inject({ url: '/register/index.html' });
      expect(template.body).not.toContain('<!--app-html-->');
      expect(template.statusCode).toBe(404);

      const missing = await app.inject({ url: '/register/assets/gone-123.js' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ error: ar.errorBadRequest });
    });
  });

  describe('server-rendered pages', () => {
    it('renders a client route into the template, not cached', async () => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({ url: '/register/register-client' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain(`<head><meta charset="UTF-8">${fixtureHead}`);
      expect(response.body).toContain(`<div id="root">${fixtureForm}`);
      expect(response.body).not.toContain('<!--app-');
    });

    it('answers an unknown page with 404 and the page text', async () => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({ url: '/register/no-such-page' });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain(`<div id="root">${ar.notFound}</div>`);
    });

    it('answers each route by its match, form paths in any case, the rest 404', async () => {
      const { app } = await buildTestApp(backend);
      for (const url of ['/register/Marketer/7/', '/register/register-client/classic%5Freco']) {
        const page = await app.inject({ url });
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain(`<div id="root">${fixtureForm}`);
      }
      for (const url of [
        '/register/marketer',
        '/register/register-client/a%20b',
        '/register/program/marketers/a%20b',
      ]) {
        const page = await app.inject({ url });
        expect(page.statusCode).toBe(404);
        expect(page.body).toContain(`<div id="root">${ar.notFound}</div>`);
      }
    });

    it('answers HEAD like GET', async () => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({ method: 'HEAD', url: '/register/register-client' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('');
    });
  });

  describe('the origin of link previews (og:url, og:image)', () => {
    const path = '/register/marketer/42';

    it('is PUBLIC_URL when set, whatever the Host', async () => {
      const { app } = await buildTestApp(backend, { PUBLIC_URL: 'https://tasjeel.example/' });
      const response = await app.inject({ url: path, headers: { host: 'evil.example' } });
      expect(response.body).toContain(fixtureOgUrl(`https://tasjeel.example${path}`));
    });

    it("is the request's own origin otherwise, as forwarded when TRUST_PROXY allows", async () => {
      const { app } = await buildTestApp(backend);
      const direct = await app.inject({ url: path, headers: { host: 'tasjeel.example:8080' } });
      expect(direct.body).toContain(fixtureOgUrl(`http://tasjeel.example:8080${path}`));

      const forwarded = {
        host: '10.0.0.5:3000',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'tasjeel.example',
      };
      const untrusted = await app.inject({ url: path, headers: forwarded });
      expect(untrusted.body).toContain(fixtureOgUrl(`http://10.0.0.5:3000${path}`));

      const { app: proxied } = await buildTestApp(backend, { TRUST_PROXY: 'true' });
      const trusted = await proxied.inject({ url: path, headers: forwarded });
      expect(trusted.body).toContain(fixtureOgUrl(`https://tasjeel.example${path}`));
    });
  });

  describe('the provider, from BRAND_NAME, BRAND_LOGO, BRAND_LICENCE, SITE_URL and PRIVACY_URL', () => {
    const form = '/register/register-client';

    it('renders every page with the default name alone when none is set', async () => {
      const { app } = await buildTestApp(backend);
      const page = await app.inject({ url: form });
      expect(fixtureBrand(page.body)).toEqual({ name: ar.brandDefault });
    });

    it('renders every page with the brand read at start, the logo under /register/', async () => {
      const { app } = await buildTestApp(backend, {
        ...sampleBrandEnv,
        SITE_URL: sampleBrand.siteUrl,
      });
      const page = await app.inject({ url: form });
      expect(fixtureBrand(page.body)).toEqual({
        name: sampleBrand.name,
        logo: {
          src: expect.stringMatching(/^\/register\/brand-logo-[0-9a-f]{12}\.svg$/),
          width: 120,
          height: 40,
        },
        licence: sampleBrand.licence,
        siteUrl: sampleBrand.siteUrl,
        privacyUrl: sampleBrand.privacyUrl,
        privacyVersion: sampleBrand.privacyVersion,
      });
    });

    it('serves the logo file, named by its content, so it is cached for good', async () => {
      const { app } = await buildTestApp(backend, sampleBrandEnv);
      const src = fixtureBrand((await app.inject({ url: form })).body)?.logo?.src ?? '';
      const logo = await app.inject({ url: src });
      expect(logo.statusCode).toBe(200);
      expect(logo.headers['content-type']).toBe('image/svg+xml');
      expect(logo.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(logo.body).toBe(readFileSync(sampleBrand.logo, 'utf8'));
      // Opened on its own, an SVG is a document: the pages' CSP runs none of its scripts.
      expect(logo.headers['content-security-policy']).toContain("script-src 'self'");
      expect((await app.inject({ url: '/register/brand-logo.svg' })).statusCode).toBe(404);
    });

    it('refuses to start with a logo that is not there', async () => {
      await expect(buildTestApp(backend, { BRAND_LOGO: '/nowhere/logo.svg' })).rejects.toThrow(
        /BRAND_LOGO: cannot read \/nowhere\/logo\.svg \(ENOENT\)/,
      );
    });
  });

  describe('/', () => {
    it('redirects to the registration form when no SITE_URL is set', async () => {
      const { app } = await buildTestApp(backend);
      const response = await app.inject({ url: '/' });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/register/register-client');
    });

    it('redirects to SITE_URL when set', async () => {
      const { app } = await buildTestApp(backend, { SITE_URL: 'https://provider.example/' });
      const response = await app.inject({ url: '/' });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('https://provider.example/');
    });
  });
});
