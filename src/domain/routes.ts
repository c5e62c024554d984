import {
  formPaths,
  marketingIdPattern,
  myLinkPath,
  programMarketerPath,
  programPath,
} from './links';
import type { RouteAttribution } from './notes';
import { confirmPath, isMailKind, unsubscribePath, type MailKind } from './notifications';
import { packageKeyPattern } from './packages';

/**
 * Which screen a location shows: a form (with its package and marketer, either or neither), the
 * marketer's link page, the provider's page of the referral programme or one marketer's on it, or nothing. The pages draw it, the server answers with its status and
 * counts a form's visit by it, and a form post without JavaScript takes its package and
 * marketer from it.
 */
export type Route =
  | ({ kind: 'form' } & RouteAttribution)
  | { kind: 'myLink' }
  | { kind: 'program' }
  | { kind: 'programMarketer'; marketingId: string }
  /** An e-mail's links (docs/notifications.md): one button, posted to the same address. */
  | { kind: 'confirmNotifications'; token: string }
  | { kind: 'stopNotifications'; mailKind: MailKind; token: string }
  | { kind: 'notFound' };

// React Router's matching (matchRoutes) for these paths, without React Router: the client
// bundle could not shed it (13 KB gzip of the form's 85 KB JavaScript budget). As there: the
// query and hash are ignored, the base path and the paths match in any case, trailing slashes
// do not count, and each segment is percent-decoded (the whole path stays as it came if one
// segment is malformed), an encoded '/' included.
function stripBasename(pathname: string, base: string): string | undefined {
  if (base === '/') return pathname;
  if (!pathname.toLowerCase().startsWith(base.toLowerCase())) return undefined;
  const rest = pathname.slice(base.length);
  return rest === '' ? '/' : rest.startsWith('/') ? rest : undefined;
}

function decodePath(pathname: string): string {
  try {
    return pathname
      .split('/')
      .map((segment) => decodeURIComponent(segment).replace(/\//g, '%2F'))
      .join('/');
  } catch {
    return pathname;
  }
}

/** The route's parameters when `pathname` (decoded, base path stripped) matches `path`. */
function matchPath(path: string, pathname: string): Record<string, string> | undefined {
  const parts = path.split('/');
  const segments = pathname.replace(/\/+$/, '').split('/');
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i] ?? '';
    if (part.startsWith(':') && segment !== '') {
      params[part.slice(1)] = segment.replace(/%2F/g, '/');
    } else if (part.toLowerCase() !== segment.toLowerCase()) {
      return undefined;
    }
  }
  return params;
}

/**
 * The route of a location (a path with an optional query and hash) under the base path `base`
 * (the pages and the server pass `basePath`; '/' takes the path as relative to it).
 */
export function matchRoute(location: string, base = '/'): Route {
  const pathname = stripBasename(location.replace(/[?#].*$/, '') || '/', base);
  if (pathname !== undefined) {
    const decoded = decodePath(pathname);
    if (matchPath(myLinkPath, decoded)) return { kind: 'myLink' };
    if (matchPath(programPath, decoded)) return { kind: 'program' };
    const confirm = matchPath(confirmPath, decoded)?.token;
    if (confirm !== undefined) return { kind: 'confirmNotifications', token: confirm };
    const stop = matchPath(unsubscribePath, decoded);
    if (stop?.kind !== undefined && stop.token !== undefined) {
      return isMailKind(stop.kind)
        ? { kind: 'stopNotifications', mailKind: stop.kind, token: stop.token }
        : { kind: 'notFound' };
    }
    const marketer = matchPath(programMarketerPath, decoded)?.marketingId;
    // An id no link could carry is no marketer's page.
    if (marketer !== undefined) {
      return marketingIdPattern.test(marketer)
        ? { kind: 'programMarketer', marketingId: marketer }
        : { kind: 'notFound' };
    }
    for (const path of formPaths) {
      const params = matchPath(path, decoded);
      if (params === undefined) continue;
      const { packageName, marketingId } = params;
      // Any other text would be shown on the provider's page and in its link previews.
      if (packageName !== undefined && !packageKeyPattern.test(packageName)) break;
      return { kind: 'form', packageName, marketingId };
    }
  }
  return { kind: 'notFound' };
}

/** The package and marketer of the form at a location under `base`; undefined if it shows none. */
export function formRouteAt(location: string, base = '/'): RouteAttribution | undefined {
  const route = matchRoute(location, base);
  return route.kind === 'form'
    ? { packageName: route.packageName, marketingId: route.marketingId }
    : undefined;
}
