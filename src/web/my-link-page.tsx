import { useRef, useSyncExternalStore } from 'react';
import { ar } from '../domain/catalogue';
import { linkMarketerId, marketerLink } from './marketer-link';

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
  if (storedUser === undefined) return <main className="page" aria-busy="true" />;

  const marketerId = linkMarketerId(storedUser);
  return (
    <main className="page">
      {marketerId === null ? (
        <p className="card">{ar.errorNotAuthorized}</p>
      ) : (
        <LinkCard link={marketerLink(window.location.origin, marketerId)} />
      )}
    </main>
  );
}

function LinkCard({ link }: { link: string }) {
  const box = useRef<HTMLTextAreaElement>(null);

  async function copy() {
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      // No Clipboard API on plain http (navigator.clipboard is undefined) or permission refused.
      box.current?.select();
      if (!document.execCommand('copy')) return;
    }
    window.alert(ar.alertCopied);
  }

  return (
    <div className="card">
      <h1 id="heading">{ar.headingMyLink}</h1>
      {/* A textarea wraps, so the marketer id at the end of a long link stays visible. */}
      <textarea
        ref={box}
        className="link"
        aria-labelledby="heading"
        dir="ltr"
        rows={2}
        readOnly
        value={link}
        onFocus={(event) => event.currentTarget.select()}
      />
      <div className="actions">
        <button type="button" onClick={copy}>
          {ar.buttonCopy}
        </button>
      </div>
    </div>
  );
}
