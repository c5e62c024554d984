import { describe, expect, it } from 'vitest';
import { basePath, formPaths, registrationPath } from './links';

describe('registrationPath', () => {
  it.each([
    [
      { packageName: 'premium_reco', marketingId: '42' },
      '/register/register-client/premium_reco/42',
    ],
    [{ packageName: 'premium_reco' }, '/register/register-client/premium_reco'],
    [{ marketingId: '42' }, '/register/marketer/42'],
    [{}, '/register/register-client'],
  ])('builds %j as %s', (route, path) => {
    expect(registrationPath(route)).toBe(path);
  });

  it('percent-encodes each value, a slash and Arabic included', () => {
    expect(registrationPath({ packageName: 'باقة/1', marketingId: 'a b?' })).toBe(
      `${basePath}/register-client/${encodeURIComponent('باقة/1')}/a%20b%3F`,
    );
  });

  it('has the shape of one of the form routes for each combination', () => {
    const shapes = [
      { packageName: 'p', marketingId: 'm' },
      { packageName: 'p' },
      { marketingId: 'm' },
      {},
    ].map((route) => registrationPath(route));
    expect(shapes).toEqual(
      formPaths.map(
        (path) => basePath + path.replace(':packageName', 'p').replace(':marketingId', 'm'),
      ),
    );
  });
});
