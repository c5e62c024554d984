import { useEffect, useRef, useState, type ClipboardEvent, type FormEvent } from 'react';
import { arForm } from '../domain/catalogue/form';
import { ar } from '../domain/catalogue/shared';
import {
  formStampField,
  nameMaxLength,
  privacyVersionField,
  trapField,
} from '../domain/form-fields';
import { signedUpParameter } from '../domain/links';
import type { RouteAttribution } from '../domain/notes';
import { packageLabel } from '../domain/packages';
import { normalizePhone, phoneMaxLength } from '../domain/phone';
import type { FormValues } from '../domain/registration';
import type { FormState } from '../domain/render-contract';
import { LicenceLine, PrivacyNotice } from './brand-header';
import { proofOfWorkAsked, solveProofOfWork } from './proof-of-work';
import { postRegistration } from './registration-api';

type Field = keyof FormValues;

const emptyValues: FormValues = { name: '', email: '', phone: '' };
const fields: readonly Field[] = ['name', 'email', 'phone'];
const errorId = 'form-error';
const successId = 'form-success';

/**
 * What sending needs, and sending alone: the payload's builder and the schema (with zod, some
 * 7 KB gzip). The form loads it at the first input, as it starts the proof of work, so the
 * JavaScript a visitor waits for before typing carries neither (docs/performance.md).
 */
type Sending = typeof import('../domain/registration');

function loadSending(): Promise<Sending> {
  const loading = import('../domain/registration');
  // Loaded ahead, it may fail unawaited (the connection dropped); the press that needs it sees.
  loading.catch(() => undefined);
  return loading;
}

/**
 * The app loads after the server's form is on screen: the server may have answered a form post
 * (an error and the values, or the success line), and a visitor may type meanwhile. The first
 * client render starts from what the page shows, or hydration would empty it.
 */
function shownBeforeHydration(): FormState {
  if (typeof document === 'undefined') {
    return { values: emptyValues, invalid: [], error: '', success: '' };
  }
  const input = (field: Field) => document.querySelector<HTMLInputElement>(`#field-${field}`);
  const typed = (field: Field) => input(field)?.value ?? '';
  const text = (id: string) => document.getElementById(id)?.textContent ?? '';
  return {
    values: { name: typed('name'), email: typed('email'), phone: normalizePhone(typed('phone')) },
    invalid: fields.filter((field) => input(field)?.getAttribute('aria-invalid') === 'true'),
    error: text(errorId),
    success: text(successId),
  };
}

/** The stamp the server put in the page's form, so that hydration keeps it. */
function stampBeforeHydration(): string {
  if (typeof document === 'undefined') return '';
  return document.querySelector<HTMLInputElement>(`#field-${formStampField}`)?.value ?? '';
}

interface RegistrationPageProps extends RouteAttribution {
  /** What the server made of a form post, when it renders the page (src/web/entry-server.tsx). */
  shown?: FormState;
  /** The server's signed time of serving the page, when it renders it. */
  stamp?: string | undefined;
}

export function RegistrationPage({
  packageName,
  marketingId,
  shown,
  stamp: served,
}: RegistrationPageProps) {
  const [initial] = useState(() => shown ?? shownBeforeHydration());
  const [stamp] = useState(() => served ?? stampBeforeHydration());
  const [values, setValues] = useState(initial.values);
  const [invalid, setInvalid] = useState(initial.invalid);
  const [error, setError] = useState(initial.error);
  const [success, setSuccess] = useState(initial.success);
  const [submitting, setSubmitting] = useState(false);
  const label = packageName === undefined ? ar.headingFreeTrial : packageLabel(packageName);

  // The address after a sign-up without JavaScript says so; shared or bookmarked as it is, it
  // would greet the next visitor with a success nobody had.
  useEffect(() => {
    const url = new URL(window.location.href);
    if (!url.searchParams.has(signedUpParameter)) return;
    url.searchParams.delete(signedUpParameter);
    window.history.replaceState(window.history.state, '', url);
  }, []);

  // While the person types, what sending needs loads and the proof of work (when the server
  // asks for one) is solved.
  const sending = useRef<Promise<Sending>>(undefined);
  const proof = useRef<Promise<string | undefined>>(undefined);
  function startProof() {
    if (proof.current === undefined && proofOfWorkAsked()) proof.current = solveProofOfWork();
  }

  function setField(field: Field, value: string) {
    sending.current ??= loadSending();
    startProof();
    setValues((current) => ({ ...current, [field]: value }));
  }

  // maxLength=12 would cut a pasted '+966 50 123 4567' before onChange could normalise it.
  function handlePhonePaste(event: ClipboardEvent<HTMLInputElement>) {
    event.preventDefault();
    const input = event.currentTarget;
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? input.value.length;
    const pasted = event.clipboardData.getData('text');
    const phone = normalizePhone(input.value.slice(0, start) + pasted + input.value.slice(end));
    setField('phone', phone.slice(0, phoneMaxLength));
  }

  // A ref, not the state: a second press while what sending needs is still loading would find
  // the state not yet set.
  const busy = useRef(false);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy.current) return;
    busy.current = true;
    try {
      await submit(event.currentTarget.elements);
    } finally {
      busy.current = false;
    }
  }

  async function submit(elements: HTMLFormControlsCollection) {
    setError('');
    setSuccess('');
    setInvalid([]);
    // Loaded at the first input, unless everything was typed before the app had loaded.
    let loaded: Sending;
    try {
      loaded = await (sending.current ??= loadSending());
    } catch {
      // The next press loads it again.
      sending.current = undefined;
      setError(arForm.errorGeneric);
      return;
    }
    const { buildPayload, registrationSchema, utmFromQuery } = loaded;
    // The notice the page shows (PrivacyNotice's hidden field), as the form posted without
    // JavaScript sends it too.
    const notice = elements.namedItem(privacyVersionField);
    const payload = buildPayload(
      values,
      { packageName, marketingId },
      utmFromQuery(new URLSearchParams(window.location.search)),
      notice instanceof HTMLInputElement ? notice.value : undefined,
    );
    const trap = elements.namedItem(trapField);
    if (trap instanceof HTMLInputElement && trap.value !== '') payload[trapField] = trap.value;
    if (stamp !== '') payload[formStampField] = stamp;
    const parsed = registrationSchema.safeParse(payload);
    if (!parsed.success) {
      const paths = parsed.error.issues.map((issue) => issue.path[0]);
      setInvalid(fields.filter((field) => paths.includes(field)));
      setError(arForm.errorInvalid);
      return;
    }
    setSubmitting(true);
    startProof();
    // A challenge is spent by one sign-up: the next one solves its own.
    const altcha = await proof.current;
    proof.current = undefined;
    const result = await postRegistration(
      altcha === undefined ? parsed.data : { ...parsed.data, altcha },
    );
    setSubmitting(false);
    if (result.ok) {
      setValues(emptyValues);
      setSuccess(arForm.success);
    } else {
      setError(result.error);
    }
  }

  function fieldProps(field: Field) {
    const isInvalid = invalid.includes(field);
    return {
      id: `field-${field}`,
      name: field,
      value: values[field],
      'aria-invalid': isInvalid || undefined,
      'aria-describedby': isInvalid ? errorId : undefined,
    };
  }

  return (
    <main className="page">
      {/* Posted by the browser itself until the app has loaded (or without JavaScript): the
          server then answers with this page (docs/product.md §7). */}
      <form className="card" aria-labelledby="heading" method="post" onSubmit={handleSubmit}>
        {/* The label in a box of its own: a line break inside «محفظة - بريميوم» leaves the dash
            hanging (a break after a hyphen is allowed, spaces or not). */}
        <h1 id="heading">
          {arForm.headingPrefix} <span className="heading-label">{label}</span>
        </h1>

        <label htmlFor="field-name">
          {arForm.fieldName}{' '}
          <span className="required" aria-hidden="true">
            *
          </span>
        </label>
        <input
          {...fieldProps('name')}
          required
          autoComplete="name"
          maxLength={nameMaxLength}
          onChange={(event) => setField('name', event.target.value)}
        />

        <label htmlFor="field-email">{arForm.fieldEmail}</label>
        <input
          {...fieldProps('email')}
          type="email"
          dir="ltr"
          autoComplete="email"
          onChange={(event) => setField('email', event.target.value)}
        />

        <label htmlFor="field-phone">
          {arForm.fieldPhone}{' '}
          <span className="required" aria-hidden="true">
            *
          </span>
        </label>
        <input
          {...fieldProps('phone')}
          type="tel"
          dir="ltr"
          inputMode="numeric"
          autoComplete="tel"
          placeholder={arForm.fieldPhonePlaceholder}
          maxLength={phoneMaxLength}
          required
          onChange={(event) => setField('phone', normalizePhone(event.target.value))}
          onPaste={handlePhonePaste}
        />

        {/* The honeypot: off-screen and hidden from assistive technology, out of the tab
            order, never autofilled. Uncontrolled, so React never writes to it. */}
        <div className="trap" aria-hidden="true">
          <label htmlFor={`field-${trapField}`}>{arForm.fieldTrap}</label>
          <input id={`field-${trapField}`} name={trapField} tabIndex={-1} autoComplete="off" />
        </div>
        {/* When the server served the page, signed: a sign-up sent within moments of it is
            flagged for review (docs/flags.md), never refused. */}
        <input
          type="hidden"
          id={`field-${formStampField}`}
          name={formStampField}
          value={stamp}
          readOnly
        />

        <p id={errorId} className="message error" role="alert">
          {error}
        </p>
        <p id={successId} className="message success" role="status">
          {success}
        </p>

        <div className="actions">
          <button type="submit" disabled={submitting}>
            {submitting ? arForm.buttonSubmitting : arForm.buttonSubmit}
          </button>
          {/* A plain link: '/' is the provider's site, outside this app. */}
          <a className="button secondary" href="/">
            {arForm.buttonBack}
          </a>
        </div>
        <PrivacyNotice />
      </form>
      <LicenceLine />
    </main>
  );
}
