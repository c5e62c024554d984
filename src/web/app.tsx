import { lazy, Suspense, useEffect, type ComponentType } from 'react';
import { ar } from '../domain/catalogue/shared';
import { basePath } from '../domain/links';
import type { MailLinkOutcome } from '../domain/notifications';
import type { Brand, FormState } from '../domain/render-contract';
import { BrandProvider } from './brand';
import { BrandHeader } from './brand-header';
import { MyLinkPage } from './my-link-page';
import { ProgramPage } from './program-page';
import { RegistrationPage } from './registration-page';
import type { MailLinkScreen } from './mail-link-screen';
import { matchScreen } from './routes';

// The pages an e-mail's links open: a chunk of their own, so that the forms' JavaScript carries
// none of it. The server renders them at once (entry-server.tsx passes the module itself:
// renderToString cannot wait for a chunk); hydration keeps the server's HTML until the chunk is
// in, then draws the same.
const LazyMailLinkScreen = lazy(() =>
  import('./mail-link-screen').then((module) => ({ default: module.MailLinkScreen })),
);

/**
 * The screen at `location` (its path, /register prefix included). Every link leaves the app,
 * so there is no client-side navigation and no router: the server renders the screen of the
 * request, and the client hydrates the screen of window.location (React Router's
 * components cost 13 KB gzip of the form's 85 KB JavaScript budget; src/domain/routes.ts
 * still matches as its matcher does).
 * `form` is what the server made of a form post, `formStamp` the time it served the page,
 * signed, `mailLink` what it made of the post of an e-mail's page, and `mailLinkScreen` that
 * page's screen, loaded (server render only).
 */
export function App({
  location,
  brand,
  form,
  formStamp,
  mailLink,
  mailLinkScreen: MailLink = LazyMailLinkScreen,
}: {
  location: string;
  brand: Brand;
  form?: FormState;
  formStamp?: string;
  mailLink?: MailLinkOutcome;
  mailLinkScreen?: ComponentType<Parameters<typeof MailLinkScreen>[0]>;
}) {
  const screen = matchScreen(location, brand.name, basePath);
  const { title } = screen;

  // The server writes the first <title> into the head; this keeps it right if the screen changes.
  useEffect(() => {
    document.title = title;
  }, [title]);

  // The root's effects run once the whole tree is committed (hydrated, on a server page): from
  // then on the app, not the browser's plain form handling, answers. Browser tests wait on it.
  useEffect(() => {
    document.documentElement.dataset.appReady = 'true';
  }, []);

  // English on an Arabic page: left-to-right and marked so, or it reads 'Page Not … - 404'.
  // The plain 404 text names no provider.
  if (screen.kind === 'notFound') {
    return (
      <main className="page" dir="ltr" lang="en">
        {ar.notFound}
      </main>
    );
  }
  // The header is the server's, in the first paint, above a screen of any height: the link
  // and programme pages, drawn on the client, grows below it and moves nothing.
  return (
    <BrandProvider value={brand}>
      <BrandHeader wide={screen.kind === 'program' || screen.kind === 'programMarketer'} />
      {screen.kind === 'form' ? (
        <RegistrationPage
          packageName={screen.packageName}
          marketingId={screen.marketingId}
          shown={form}
          stamp={formStamp}
        />
      ) : screen.kind === 'myLink' ? (
        <MyLinkPage />
      ) : screen.kind === 'confirmNotifications' || screen.kind === 'stopNotifications' ? (
        <Suspense fallback={<main className="page" aria-busy="true" />}>
          <MailLink route={screen} outcome={mailLink} />
        </Suspense>
      ) : (
        <ProgramPage
          marketingId={screen.kind === 'programMarketer' ? screen.marketingId : undefined}
        />
      )}
    </BrandProvider>
  );
}
