import { useEffect, useState, type FormEvent } from 'react';
import { arNotifications } from '../domain/catalogue/notifications';
import {
  notificationChoices,
  notificationsPath,
  type Choices,
  type Notifications,
} from '../domain/notifications';
import { fetchWithToken, putWithToken } from './platform-token';

type Loaded =
  | { kind: 'loading' }
  | { kind: 'hidden' }
  | { kind: 'error' }
  | { kind: 'shown'; answer: Notifications };

// E-mail off on the server (204, or 404 without the numbers), no token or a bad one, a role
// with no e-mails.
const hiddenStatuses = [204, 401, 403, 404];

/** An answer with choices: a server (or a proxy) that answers anything else has no e-mails. */
function isNotifications(body: unknown): body is Notifications {
  if (typeof body !== 'object' || body === null) return false;
  const { offered, email } = body as Partial<Record<keyof Notifications, unknown>>;
  return (
    Array.isArray(offered) &&
    offered.every((choice) => notificationChoices.some((known) => known === choice)) &&
    (email === null || typeof email === 'string')
  );
}

/** What a PUT sends: only what differs from the server's last answer. */
type Changes = Partial<Choices> & { email?: string };

function choicesOf(answer: Notifications): Choices {
  return Object.fromEntries(
    notificationChoices.map((choice) => [choice, answer[choice]]),
  ) as Choices;
}

/** Where the e-mails go, or why none do yet; '' when there is nothing to say. */
function statusOf(answer: Notifications, saved: boolean): string {
  const wanted = answer.offered.some((choice) => answer[choice]);
  if (!wanted) return saved ? arNotifications.sendingNone : '';
  if (answer.email === null) return '';
  if (answer.confirmed) return arNotifications.sendingTo(answer.email);
  return answer.confirmation_sent ? arNotifications.confirmationSent(answer.email) : '';
}

/** The server's Arabic refusal (400, 401, 403, 429), or the catalogue's line when it has none. */
async function refusalOf(response: Response): Promise<string> {
  if (response.status === 503) return arNotifications.errorSave;
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string' && body.error !== '') return body.error;
  } catch {
    // Not JSON (a proxy's page): the catalogue's line below.
  }
  return arNotifications.errorSave;
}

/**
 * «الرسائل بالبريد الإلكتروني» (docs/notifications.md): the e-mails a person asks for, on the
 * link page and on the programme's page, with the platform's token. Nothing is shown until the
 * server answers, and nothing at all when it refuses (no token) or sends no e-mail (204),
 * so a page without e-mails never flashes the section.
 */
export function NotificationsSection({ storageKey }: { storageKey: string }) {
  const [attempt, setAttempt] = useState(0);
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    fetchWithToken(notificationsPath, storageKey, controller.signal)
      .then(async (response): Promise<Loaded> => {
        if (hiddenStatuses.includes(response.status)) return { kind: 'hidden' };
        if (!response.ok) return { kind: 'error' };
        const answer: unknown = await response.json();
        return isNotifications(answer) ? { kind: 'shown', answer } : { kind: 'hidden' };
      })
      .then(setLoaded, () => {
        if (!controller.signal.aborted) setLoaded({ kind: 'error' });
      });
    return () => controller.abort();
  }, [storageKey, attempt]);

  if (loaded.kind === 'loading' || loaded.kind === 'hidden') return null;
  return (
    <section className="card notifications" aria-labelledby="notifications-heading">
      <h2 id="notifications-heading">{arNotifications.heading}</h2>
      {loaded.kind === 'error' ? (
        <>
          <p className="message error" role="alert">
            {arNotifications.errorLoad}
          </p>
          <div className="actions">
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setLoaded({ kind: 'loading' });
                setAttempt((n) => n + 1);
              }}
            >
              {arNotifications.buttonRetry}
            </button>
          </div>
        </>
      ) : (
        <ChoicesForm first={loaded.answer} storageKey={storageKey} />
      )}
    </section>
  );
}

function ChoicesForm({ first, storageKey }: { first: Notifications; storageKey: string }) {
  // The server's last answer: a save sends what differs from it.
  const [answer, setAnswer] = useState(first);
  const [email, setEmail] = useState(first.email ?? '');
  const [chosen, setChosen] = useState(() => choicesOf(first));
  const [saving, setSaving] = useState(false);
  const [status, setStatus] = useState(() => statusOf(first, false));
  const [error, setError] = useState('');

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (saving) return;
    const changes: Changes = {};
    if (email.trim() !== (answer.email ?? '')) changes.email = email.trim();
    for (const choice of answer.offered) {
      if (chosen[choice] !== answer[choice]) changes[choice] = chosen[choice];
    }
    setSaving(true);
    setError('');
    setStatus('');
    try {
      const response = await putWithToken(notificationsPath, storageKey, changes);
      if (!response.ok) {
        // What was typed and ticked stays as it is, to correct or to send again.
        setError(await refusalOf(response));
        return;
      }
      const saved = (await response.json()) as Notifications;
      setAnswer(saved);
      setEmail(saved.email ?? '');
      setChosen(choicesOf(saved));
      setStatus(statusOf(saved, true));
    } catch {
      setError(arNotifications.errorSave);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form noValidate onSubmit={save} aria-busy={saving}>
      <label htmlFor="notifications-email">{arNotifications.fieldEmail}</label>
      <input
        id="notifications-email"
        type="email"
        dir="ltr"
        autoComplete="email"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <fieldset className="choices">
        <legend>{arNotifications.fieldChoices}</legend>
        {answer.offered.map((choice) => (
          <div className="choice" key={choice}>
            <input
              id={`notifications-${choice}`}
              type="checkbox"
              checked={chosen[choice]}
              onChange={(event) => {
                const { checked } = event.target;
                setChosen((current) => ({ ...current, [choice]: checked }));
              }}
            />
            <label htmlFor={`notifications-${choice}`}>{arNotifications.choices[choice]}</label>
          </div>
        ))}
      </fieldset>
      <p className="note">{arNotifications.consent}</p>
      <div className="actions">
        <button type="submit" disabled={saving}>
          {saving ? arNotifications.buttonSaving : arNotifications.buttonSave}
        </button>
      </div>
      {/* Both in the page from the start, so that screen readers announce what comes into them. */}
      <p className="message error" role="alert">
        {error}
      </p>
      <p className="message success" role="status">
        {status}
      </p>
    </form>
  );
}
