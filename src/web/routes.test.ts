import { describe, expect, it } from 'vitest';
import { ar } from '../domain/catalogue/shared';
import { basePath } from '../domain/links';
import { packageLabels } from '../domain/packages';
import { matchRoute } from '../domain/routes';
import { matchScreen } from './routes';

describe('matchScreen: the route (src/domain/routes.ts) and its title', () => {
  it.each([
    [
      '/register/register-client/premium_reco/42',
      ar.titlePackage(packageLabels.premium_reco, ar.brandDefault),
    ],
    [
      '/register/register-client/economy_reco',
      ar.titlePackage(packageLabels.economy_reco, ar.brandDefault),
    ],
    ['/register/marketer/42', ar.titleGeneric(ar.brandDefault)],
    ['/register/register-client', ar.titleGeneric(ar.brandDefault)],
    ['/register/my-registration-link', ar.titleMyLink(ar.brandDefault)],
    ['/register/notifications/confirm/abc', ar.titleConfirmNotifications(ar.brandDefault)],
    ['/register/notifications/stop/weekly/abc', ar.titleStopNotifications(ar.brandDefault)],
    ['/register/unknown', ar.notFound],
  ])('%s', (url, title) => {
    expect(matchScreen(url, ar.brandDefault, basePath)).toEqual({
      ...matchRoute(url, basePath),
      title,
    });
  });

  it('names the provider it is given, and none on the plain 404', () => {
    const path = '/register/register-client/classic_reco';
    expect(matchScreen(path, 'Acme', basePath).title).toBe(
      ar.titlePackage(packageLabels.classic_reco, 'Acme'),
    );
    expect(matchScreen('/register/nothing', 'Acme', basePath).title).toBe(ar.notFound);
  });

  it('matches under the base path it is given, or relative to it without one', () => {
    expect(matchScreen('/register-client/classic_reco/7', ar.brandDefault)).toEqual(
      matchScreen('/register/register-client/classic_reco/7', ar.brandDefault, basePath),
    );
    expect(matchScreen('/register-client', ar.brandDefault, basePath).kind).toBe('notFound');
  });
});
