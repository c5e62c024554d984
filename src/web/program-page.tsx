import { lazy, Suspense, useSyncExternalStore } from 'react';
import { ar } from '../domain/catalogue/shared';

// The programme's numbers, table and chart: a chunk of its own, so that the forms' JavaScript
// carries none of it.
const ProgramScreen = lazy(() =>
  import('./program-screen').then((module) => ({ default: module.ProgramScreen })),
);
// One marketer's page: a chunk of its own too, loaded on its path only.
const ProgramMarketerScreen = lazy(() =>
  import('./program-marketer-screen').then((module) => ({
    default: module.ProgramMarketerScreen,
  })),
);

const subscribe = () => () => {};
const onClient = () => true;
const onServer = () => false;

/**
 * The provider's page of the referral programme, or one marketer's on it (`marketingId`). Its
 * numbers need the token the platform left in localStorage, so the server sends an empty page
 * and the client draws it, as the link page.
 */
export function ProgramPage({ marketingId }: { marketingId?: string }) {
  const client = useSyncExternalStore(subscribe, onClient, onServer);
  if (!client) {
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
      {marketingId === undefined ? (
        <ProgramScreen />
      ) : (
        <ProgramMarketerScreen marketingId={marketingId} />
      )}
    </Suspense>
  );
}
