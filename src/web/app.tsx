import { useEffect } from 'react';
import { ar } from '../domain/catalogue';
import { basePath } from '../domain/links';
import { MyLinkPage } from './my-link-page';
import { RegistrationPage } from './registration-page';
import { matchScreen } from './routes';

/**
 * The screen at `location` (its path, /register prefix included). Every link leaves the app,
 * so there is no client-side navigation and no router: the server renders the screen of the
 * request, and the client hydrates the screen of window.location (React Router's
 * components cost 13 KB gzip of the form's 85 KB JavaScript budget; routes.ts still matches with its matcher).
 */
export function App({ location }: { location: string }) {
  const screen = matchScreen(location, basePath);
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

  switch (screen.kind) {
    case 'form':
      return <RegistrationPage packageName={screen.packageName} marketingId={screen.marketingId} />;
    case 'myLink':
      return <MyLinkPage />;
    case 'notFound':
      // English on an Arabic page: left-to-right and marked so, or it reads 'Page Not … - 404'.
      return (
        <main className="page" dir="ltr" lang="en">
          {ar.notFound}
        </main>
      );
  }
}
