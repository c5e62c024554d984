import { lazy, Suspense, useSyncExternalStore } from 'react';
import { ar } from '../domain/catalogue/shared';

// The link, its kit and the marketer's numbers: a chunk of its own, fetched once the user is
// known, so that the forms' JavaScript carries none of it.
const LinkScreen = lazy(() =>
  import('./my-link-screen').then((module) => ({ default: module.LinkScreen })),
);

function subscribe(onChange: () => void) {
  window.addEventListener('storage', onChange);
  return () => window.removeEventListener('storage', onChange);
}

function readStoredUser(): string | null {
  try {
    return window.localStorage.getItem('user');
  } catch {
    // Storage can be switched off (privacy settings): treat it as no user.
    return null;
  }
}

// The server has no localStorage: undefined means "not known yet", and hydration starts from it.
function notKnownOnServer(): undefined {
  return undefined;
}

export function MyLinkPage() {
  const storedUser = useSyncExternalStore(subscribe, readStoredUser, notKnownOnServer);

  // Nothing until the client knows the user, so neither a link nor the refusal flashes.
  // A browser without scripts stays here (and keeps nothing of <noscript> when it has them).
  if (storedUser === undefined) {
    return (
      <main className="page" aria-busy="true">
        <noscript>
          <p className="card">{ar.errorLinkPageNeedsScript}</p>
        </noscript>
      </main>
    );
  }
  return (
    <Suspense fallback={<main className="page" aria-busy="true" />}>
      <LinkScreen storedUser={storedUser} />
    </Suspense>
  );
}
