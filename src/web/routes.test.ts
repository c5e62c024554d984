import { describe, expect, it } from 'vitest';
import { ar } from '../domain/catalogue';
import { basePath, registrationPath } from '../domain/links';
import { packageLabels } from '../domain/packages';
import { formHeading, matchScreen } from './routes';

describe('matchScreen', () => {
  it.each([
    [
      '/register/register-client/premium_reco/42',
      { kind: 'form', packageName: 'premium_reco', marketingId: '42' },
      ar.titlePackage(packageLabels.premium_reco, ar.brandDefault),
    ],
    [
      '/register/register-client/economy_reco',
      { kind: 'form', packageName: 'economy_reco', marketingId: undefined },
      ar.titlePackage(packageLabels.economy_reco, ar.brandDefault),
    ],
    [
      '/register/marketer/42',
      { kind: 'form', packageName: undefined, marketingId: '42' },
      ar.titleGeneric(ar.brandDefault),
    ],
    [
      '/register/register-client',
      { kind: 'form', packageName: undefined, marketingId: undefined },
      ar.titleGeneric(ar.brandDefault),
    ],
    ['/register/my-registration-link', { kind: 'myLink' }, ar.titleMyLink(ar.brandDefault)],
  ])('%s', (url, screen, title) => {
    expect(matchScreen(url, ar.brandDefault, basePath)).toEqual({ ...screen, title });
  });

  it('matches a path given without the base path when no base is passed', () => {
    expect(matchScreen('/register-client/classic_reco/7', ar.brandDefault)).toEqual(
      matchScreen('/register/register-client/classic_reco/7', ar.brandDefault, basePath),
    );
  });

  it('decodes each segment, and ignores the query and a trailing slash', () => {
    expect(
      matchScreen('/register/register-client/premium%5Fportfolio/', ar.brandDefault, basePath),
    ).toEqual({
      kind: 'form',
      packageName: 'premium_portfolio',
      marketingId: undefined,
      title: ar.titlePackage(packageLabels.premium_portfolio, ar.brandDefault),
    });
    expect(
      matchScreen('/register/marketer/9?utm_source=whatsapp', ar.brandDefault, basePath),
    ).toMatchObject({
      marketingId: '9',
    });
  });

  it('matches in any case, decodes an encoded slash, and keeps a path with a bad escape', () => {
    expect(matchScreen('/REGISTER/Marketer/7//', ar.brandDefault, basePath)).toMatchObject({
      marketingId: '7',
    });
    expect(matchScreen('/register/marketer/a%2Fb', ar.brandDefault, basePath)).toMatchObject({
      marketingId: 'a/b',
    });
    expect(matchScreen('/register/marketer/%E0%A4%A', ar.brandDefault, basePath)).toMatchObject({
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
    `/register/register-client/${encodeURIComponent(packageLabels.premium_portfolio)}`,
    '/register/register-client/a%20b/7',
  ])('finds no screen at %s', (url) => {
    expect(matchScreen(url, ar.brandDefault, basePath)).toEqual({
      kind: 'notFound',
      title: ar.notFound,
    });
  });
});

describe('registrationPath and matchScreen, the two sides of the route table', () => {
  it.each([
    { packageName: 'premium_reco', marketingId: 'a/b c' },
    { packageName: 'gold-2026', marketingId: undefined },
    { packageName: undefined, marketingId: '42' },
    { packageName: undefined, marketingId: undefined },
  ])('finds the form of %j at the path built for it', (route) => {
    expect(matchScreen(registrationPath(route), ar.brandDefault, basePath)).toMatchObject({
      kind: 'form',
      ...route,
    });
  });
});

describe('formHeading', () => {
  it('names the package, shows an unknown key as it came, or says free trial', () => {
    expect(formHeading('classic_reco')).toBe(`${ar.headingPrefix} ${packageLabels.classic_reco}`);
    expect(formHeading('gold_plan')).toBe(`${ar.headingPrefix} gold_plan`);
    expect(formHeading(undefined)).toBe(`${ar.headingPrefix} ${ar.headingFreeTrial}`);
  });
});
