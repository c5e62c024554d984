import { describe, expect, it } from 'vitest';
import { ar } from '../domain/catalogue';
import { registrationPath } from '../domain/links';
import { packageLabels } from '../domain/packages';
import { brand } from './env';
import { basename, formHeading, matchScreen } from './routes';

describe('matchScreen', () => {
  it.each([
    [
      '/register/register-client/premium_reco/42',
      { kind: 'form', packageName: 'premium_reco', marketerId: '42' },
      ar.titlePackage(packageLabels.premium_reco, brand),
    ],
    [
      '/register/register-client/economy_reco',
      { kind: 'form', packageName: 'economy_reco', marketerId: undefined },
      ar.titlePackage(packageLabels.economy_reco, brand),
    ],
    [
      '/register/marketer/42',
      { kind: 'form', packageName: undefined, marketerId: '42' },
      ar.titleGeneric(brand),
    ],
    [
      '/register/register-client',
      { kind: 'form', packageName: undefined, marketerId: undefined },
      ar.titleGeneric(brand),
    ],
    ['/register/my-registration-link', { kind: 'myLink' }, ar.titleMyLink(brand)],
  ])('%s', (url, screen, title) => {
    expect(matchScreen(url, basename)).toEqual({ ...screen, title });
  });

  it('reads the path without the basename, as the client router gives it', () => {
    expect(matchScreen('/register-client/classic_reco/7')).toEqual(
      matchScreen('/register/register-client/classic_reco/7', basename),
    );
  });

  it('decodes the route like React Router, and ignores the query and a trailing slash', () => {
    expect(matchScreen('/register/register-client/premium%5Fportfolio/', basename)).toEqual({
      kind: 'form',
      packageName: 'premium_portfolio',
      marketerId: undefined,
      title: ar.titlePackage(packageLabels.premium_portfolio, brand),
    });
    expect(matchScreen('/register/marketer/9?utm_source=whatsapp', basename)).toMatchObject({
      marketerId: '9',
    });
  });

  it('matches as React Router did: in any case, an encoded slash decoded, a bad escape kept', () => {
    expect(matchScreen('/REGISTER/Marketer/7//', basename)).toMatchObject({ marketerId: '7' });
    expect(matchScreen('/register/marketer/a%2Fb', basename)).toMatchObject({ marketerId: 'a/b' });
    expect(matchScreen('/register/marketer/%E0%A4%A', basename)).toMatchObject({
      marketerId: '%E0%A4%A',
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
    expect(matchScreen(url, basename)).toEqual({ kind: 'notFound', title: ar.notFound });
  });
});

describe('registrationPath and matchScreen, the two sides of the route table', () => {
  it.each([
    { packageName: 'premium_reco', marketerId: 'a/b c' },
    { packageName: 'gold-2026', marketerId: undefined },
    { packageName: undefined, marketerId: '42' },
    { packageName: undefined, marketerId: undefined },
  ])('finds the form of %j at the path built for it', (route) => {
    expect(matchScreen(registrationPath(route), basename)).toMatchObject({
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
