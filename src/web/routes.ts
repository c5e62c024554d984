import { matchRoutes } from 'react-router';
import { ar } from '../domain/catalogue';
import { packageLabel } from '../domain/packages';
import { brand } from './env';

export const basename = '/register';

/** SPEC §2's form routes, relative to the basename; <Routes> in app.tsx renders the same list. */
export const formPaths = [
  '/register-client/:packageName/:marketerId',
  '/register-client/:packageName',
  '/marketer/:marketerId',
  '/register-client',
];
export const myLinkPath = '/my-registration-link';

export type Screen =
  | { kind: 'form'; packageName?: string; marketerId?: string; title: string }
  | { kind: 'myLink'; title: string }
  | { kind: 'notFound'; title: string };

function formTitle(packageName: string | undefined): string {
  return packageName === undefined
    ? ar.titleGeneric(brand)
    : ar.titlePackage(packageLabel(packageName), brand);
}

export function formHeading(packageName: string | undefined): string {
  return `${ar.headingPrefix} ${packageName === undefined ? ar.headingFreeTrial : packageLabel(packageName)}`;
}

const routes = [...formPaths, myLinkPath].map((path) => ({ path }));

/**
 * Which screen a location shows, with its title: the server's <title> and status and the
 * client's document.title both come from here. It uses React Router's own matching (with its
 * URL decoding), so it cannot disagree with <Routes>.
 */
export function matchScreen(location: string, base = '/'): Screen {
  const match = matchRoutes(routes, location, base)?.[0];
  if (match === undefined) return { kind: 'notFound', title: ar.notFound };
  if (match.route.path === myLinkPath) return { kind: 'myLink', title: ar.titleMyLink(brand) };
  const { packageName, marketerId } = match.params;
  return { kind: 'form', packageName, marketerId, title: formTitle(packageName) };
}
