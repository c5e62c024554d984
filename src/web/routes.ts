import { ar } from '../domain/catalogue/shared';
import { packageLabel } from '../domain/packages';
import { matchRoute, type Route } from '../domain/routes';

/** A route as the pages show it: with its title. */
export type Screen = Route & { title: string };

function title(route: Route, brand: string): string {
  switch (route.kind) {
    case 'form':
      return route.packageName === undefined
        ? ar.titleGeneric(brand)
        : ar.titlePackage(packageLabel(route.packageName), brand);
    case 'myLink':
      return ar.titleMyLink(brand);
    case 'program':
      return ar.titleProgram(brand);
    case 'programMarketer':
      return ar.titleProgramMarketer(brand);
    case 'confirmNotifications':
      return ar.titleConfirmNotifications(brand);
    case 'stopNotifications':
      return ar.titleStopNotifications(brand);
    case 'notFound':
      return ar.notFound;
  }
}

/**
 * Which screen a location (a path with an optional query) shows (`matchRoute`), with its title
 * (which names `brand`, the provider): the server's <title> and the client's document.title
 * both come from here.
 */
export function matchScreen(location: string, brand: string, base = '/'): Screen {
  const route = matchRoute(location, base);
  return { ...route, title: title(route, brand) };
}
