import { describe, expect, it } from 'vitest';
import { basePath, registrationPath } from './links';
import { packageLabels } from './packages';
import { formRouteAt, matchRoute } from './routes';

describe('matchRoute', () => {
  it.each([
    [
      '/register/register-client/premium_reco/42',
      { kind: 'form', packageName: 'premium_reco', marketingId: '42' },
    ],
    [
      '/register/register-client/economy_reco',
      { kind: 'form', packageName: 'economy_reco', marketingId: undefined },
    ],
    ['/register/marketer/42', { kind: 'form', packageName: undefined, marketingId: '42' }],
    ['/register/register-client', { kind: 'form', packageName: undefined, marketingId: undefined }],
    ['/register/my-registration-link', { kind: 'myLink' }],
    ['/register/program', { kind: 'program' }],
    ['/register/Program/?days=7', { kind: 'program' }],
    ['/register/program/marketers/42?days=7', { kind: 'programMarketer', marketingId: '42' }],
    ['/register/program/marketers/m%2E1', { kind: 'programMarketer', marketingId: 'm.1' }],
  ])('%s', (url, route) => {
    expect(matchRoute(url, basePath)).toStrictEqual(route);
  });

  it('matches a path given without the base path when no base is passed', () => {
    expect(matchRoute('/register-client/classic_reco/7')).toEqual(
      matchRoute('/register/register-client/classic_reco/7', basePath),
    );
  });

  it('decodes each segment, and ignores the query, the hash and a trailing slash', () => {
    expect(matchRoute('/register/register-client/premium%5Fportfolio/', basePath)).toEqual({
      kind: 'form',
      packageName: 'premium_portfolio',
      marketingId: undefined,
    });
    expect(matchRoute('/register/marketer/9?utm_source=whatsapp', basePath)).toEqual({
      kind: 'form',
      packageName: undefined,
      marketingId: '9',
    });
    expect(matchRoute('/register/my-registration-link#top', basePath)).toEqual({ kind: 'myLink' });
  });

  it('matches in any case, decodes an encoded slash, and keeps a path with a bad escape', () => {
    expect(matchRoute('/REGISTER/Marketer/7//', basePath)).toMatchObject({ marketingId: '7' });
    expect(matchRoute('/register/marketer/a%2Fb', basePath)).toMatchObject({
      marketingId: 'a/b',
    });
    expect(matchRoute('/register/marketer/%E0%A4%A', basePath)).toMatchObject({
      marketingId: '%E0%A4%A',
    });
  });

  it.each([
    '/register',
    '/register/',
    '/register/unknown',
    '/register/marketer',
    '/register/register-client/a/b/c',
    '/register/my-registration-link/extra',
    '/elsewhere/register-client',
    '/registerer/register-client',
    `/register/register-client/${encodeURIComponent(packageLabels.premium_portfolio)}`,
    '/register/register-client/a%20b/7',
    '/register/program/marketers/a%20b',
    `/register/program/marketers/${'7'.repeat(65)}`,
  ])('finds no screen at %s', (url) => {
    expect(matchRoute(url, basePath)).toEqual({ kind: 'notFound' });
  });
});

describe('registrationPath and matchRoute, the two sides of the route table', () => {
  it.each([
    { packageName: 'premium_reco', marketingId: 'a/b c' },
    { packageName: 'gold-2026', marketingId: undefined },
    { packageName: undefined, marketingId: '42' },
    { packageName: undefined, marketingId: undefined },
  ])('finds the form of %j at the path built for it', (route) => {
    expect(matchRoute(registrationPath(route), basePath)).toEqual({ kind: 'form', ...route });
  });
});

describe('formRouteAt', () => {
  it("gives a form's package and marketer alone, and nothing where no form is", () => {
    expect(formRouteAt('/register/register-client/classic_reco/7?x=1', basePath)).toStrictEqual({
      packageName: 'classic_reco',
      marketingId: '7',
    });
    expect(formRouteAt('/register/marketer/7', basePath)).toStrictEqual({
      packageName: undefined,
      marketingId: '7',
    });
    expect(formRouteAt('/register/my-registration-link', basePath)).toBeUndefined();
    expect(formRouteAt('/register/unknown', basePath)).toBeUndefined();
  });
});
