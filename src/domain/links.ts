import type { RouteAttribution } from './notes';

/** docs/product.md §1: the pages (and their assets) live under /register/. */
export const basePath = '/register';

/**
 * The form routes of docs/product.md §2, relative to basePath: matchRoute (routes.ts) matches
 * them and registrationPath builds them, so a link can only ever lead to a form.
 */
export const formPaths = [
  '/register-client/:packageName/:marketingId',
  '/register-client/:packageName',
  '/marketer/:marketingId',
  '/register-client',
] as const;

/**
 * The query parameter of the page a form post without JavaScript is redirected to once it is
 * stored: that page shows the success line, and reloading it posts nothing.
 */
export const signedUpParameter = 'registered';

/** The link page of docs/product.md §2, relative to basePath. */
export const myLinkPath = '/my-registration-link';

/** The provider's page of the referral programme (docs/program.md). */
export const programPath = '/program';

/** A marketer's id, as sent in marketing_id and as found in a link. */
export const marketingIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;

/** One marketer's page on the programme, opened from their row (docs/program.md). */
export const programMarketerPath = '/program/marketers/:marketingId';

/** The path of one marketer's page on the programme, their id percent-encoded. */
export const programMarketerPage = (marketingId: string) =>
  `${basePath}/program/marketers/${encodeURIComponent(marketingId)}`;

/**
 * The path of the form for a package and a marketer, either or neither (docs/product.md §2, §9): a
 * marketer's free-trial link is /register/marketer/{id}, a package link adds the package
 * before the id. Each value is percent-encoded, a '/' included.
 */
export function registrationPath({ packageName, marketingId }: RouteAttribution): string {
  const pkg = packageName === undefined ? '' : `/${encodeURIComponent(packageName)}`;
  const id = marketingId === undefined ? '' : `/${encodeURIComponent(marketingId)}`;
  return packageName === undefined && marketingId !== undefined
    ? `${basePath}/marketer${id}`
    : `${basePath}/register-client${pkg}${id}`;
}
