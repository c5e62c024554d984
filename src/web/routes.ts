import { ar } from '../domain/catalogue';
import { formPaths, myLinkPath } from '../domain/links';
import { packageKeyPattern, packageLabel } from '../domain/packages';

export type Screen =
  | { kind: 'form'; packageName?: string; marketingId?: string; title: string }
  | { kind: 'myLink'; title: string }
  | { kind: 'notFound'; title: string };

function formTitle(packageName: string | undefined, brand: string): string {
  return packageName === undefined
    ? ar.titleGeneric(brand)
    : ar.titlePackage(packageLabel(packageName), brand);
}

export function formHeading(packageName: string | undefined): string {
  return `${ar.headingPrefix} ${packageName === undefined ? ar.headingFreeTrial : packageLabel(packageName)}`;
}

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
 * Which screen a location (a path with an optional query) shows, with its title (which names
 * `brand`, the provider): the server's <title> and status and the client's document.title all
 * come from here.
 */
export function matchScreen(location: string, brand: string, base = '/'): Screen {
  const pathname = stripBasename(location.replace(/[?#].*$/, '') || '/', base);
  if (pathname !== undefined) {
    const decoded = decodePath(pathname);
    if (matchPath(myLinkPath, decoded)) return { kind: 'myLink', title: ar.titleMyLink(brand) };
    for (const path of formPaths) {
      const params = matchPath(path, decoded);
      if (params === undefined) continue;
      const { packageName, marketingId } = params;
      // Any other text would be shown on the provider's page and in its link previews.
      if (packageName !== undefined && !packageKeyPattern.test(packageName)) break;
      return { kind: 'form', packageName, marketingId, title: formTitle(packageName, brand) };
    }
  }
  return { kind: 'notFound', title: ar.notFound };
}
