import { useState } from 'react';
import { arNotifications } from '../domain/catalogue/notifications';
import type { MailLinkOutcome } from '../domain/notifications';
import { LicenceLine } from './brand-header';
import type { Screen } from './routes';

export type MailLinkRoute = Extract<
  Screen,
  { kind: 'confirmNotifications' } | { kind: 'stopNotifications' }
>;

const outcomes: readonly MailLinkOutcome[] = ['done', 'invalid', 'failed'];

/**
 * What the server's page showed: the client loads this screen after the server's HTML is on
 * screen, and its first render must draw the same outcome, or hydration would put the button
 * back over a link already used.
 */
function outcomeBeforeHydration(): MailLinkOutcome | undefined {
  if (typeof document === 'undefined') return undefined;
  const shown = document.querySelector('[data-mail-link]')?.getAttribute('data-mail-link');
  return outcomes.find((outcome) => outcome === shown);
}

function texts(route: MailLinkRoute) {
  if (route.kind === 'confirmNotifications') {
    return {
      heading: arNotifications.confirmHeading,
      lead: arNotifications.confirmLead,
      button: arNotifications.confirmButton,
      done: arNotifications.confirmDone,
      invalid: arNotifications.confirmInvalid,
    };
  }
  const kind = arNotifications.stop[route.mailKind];
  return { heading: arNotifications.stopHeading, ...kind, invalid: arNotifications.stopInvalid };
}

/**
 * The page an e-mail's link opens (docs/notifications.md): the confirmation of an address, or
 * the stop of one kind of e-mail. Opening it changes nothing (a mail scanner opens every link):
 * it says what its one button does, and the button is a plain form posted to the same address,
 * which works without JavaScript. The server answers the post with this page again, `outcome`
 * being what it did; undefined on a GET. The stop form sends what a mail provider's one-click
 * unsubscribe sends (RFC 8058), so that the server reads both alike.
 */
export function MailLinkScreen({
  route,
  outcome: served,
}: {
  route: MailLinkRoute;
  outcome?: MailLinkOutcome | undefined;
}) {
  const [outcome] = useState(() => served ?? outcomeBeforeHydration());
  const text = texts(route);
  const line =
    outcome === 'done'
      ? text.done
      : outcome === 'invalid'
        ? text.invalid
        : outcome === 'failed'
          ? arNotifications.linkFailed
          : text.lead;
  return (
    <main className="page" data-mail-link={outcome ?? ''}>
      <div className="card">
        <h1>{text.heading}</h1>
        <p
          className={
            outcome === undefined
              ? undefined
              : `message ${outcome === 'done' ? 'success' : 'error'}`
          }
        >
          {line}
        </p>
        {/* Again after a failure: the same post may succeed a little later. */}
        {(outcome === undefined || outcome === 'failed') && (
          <form method="post" className="actions">
            {route.kind === 'stopNotifications' ? (
              <button type="submit" name="List-Unsubscribe" value="One-Click">
                {text.button}
              </button>
            ) : (
              <button type="submit">{text.button}</button>
            )}
          </form>
        )}
      </div>
      <LicenceLine />
    </main>
  );
}
