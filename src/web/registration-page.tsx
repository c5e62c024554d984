import { useRef, useState, useSyncExternalStore, type ClipboardEvent, type FormEvent } from 'react';
import { ar } from '../domain/catalogue';
import type { RouteAttribution } from '../domain/notes';
import { normalizePhone, phoneMaxLength } from '../domain/phone';
import {
  buildPayload,
  nameMaxLength,
  registrationSchema,
  trapField,
  type FormValues,
} from '../domain/registration';
import { proofOfWorkAsked, solveProofOfWork } from './proof-of-work';
import { postRegistration } from './registration-api';
import { formHeading } from './routes';

type Field = keyof FormValues;

const emptyValues: FormValues = { name: '', email: '', phone: '' };
const fields: readonly Field[] = ['name', 'email', 'phone'];
const errorId = 'form-error';

const subscribeToNothing = () => () => {};

/**
 * False in the server's HTML, true once React runs. Until then the browser would submit the
 * form itself, as a GET that puts the name and phone in the address bar and the server's log;
 * a disabled default button blocks that, Enter included.
 */
function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}

/**
 * The app loads after the server's form is on screen, and a visitor may type meanwhile. The
 * first client render starts from what the fields hold, or hydration would empty them.
 */
function typedBeforeHydration(): FormValues {
  if (typeof document === 'undefined') return emptyValues;
  const typed = (field: Field) =>
    document.querySelector<HTMLInputElement>(`#field-${field}`)?.value ?? '';
  return { name: typed('name'), email: typed('email'), phone: normalizePhone(typed('phone')) };
}

export function RegistrationPage({ packageName, marketingId }: RouteAttribution) {
  const [values, setValues] = useState(typedBeforeHydration);
  const [invalid, setInvalid] = useState<readonly Field[]>([]);
  const [error, setError] = useState('');
  const [success, setSuccess] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const hydrated = useHydrated();
  const heading = formHeading(packageName);

  // The proof of work (when the server asks for one) is solved while the person types.
  const proof = useRef<Promise<string | undefined>>(undefined);
  function startProof() {
    if (proof.current === undefined && proofOfWorkAsked()) proof.current = solveProofOfWork();
  }

  function setField(field: Field, value: string) {
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

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (submitting) return;
    setError('');
    setSuccess('');
    setInvalid([]);
    const payload = buildPayload(values, { packageName, marketingId });
    const trap = event.currentTarget.elements.namedItem(trapField);
    if (trap instanceof HTMLInputElement && trap.value !== '') payload[trapField] = trap.value;
    const parsed = registrationSchema.safeParse(payload);
    if (!parsed.success) {
      const paths = parsed.error.issues.map((issue) => issue.path[0]);
      setInvalid(fields.filter((field) => paths.includes(field)));
      setError(ar.errorInvalid);
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
      setSuccess(ar.success);
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
      <form className="card" aria-labelledby="heading" onSubmit={handleSubmit}>
        <h1 id="heading">{heading}</h1>

        <label htmlFor="field-name">
          {ar.fieldName}{' '}
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

        <label htmlFor="field-email">{ar.fieldEmail}</label>
        <input
          {...fieldProps('email')}
          type="email"
          dir="ltr"
          autoComplete="email"
          onChange={(event) => setField('email', event.target.value)}
        />

        <label htmlFor="field-phone">
          {ar.fieldPhone}{' '}
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
          placeholder={ar.fieldPhonePlaceholder}
          maxLength={phoneMaxLength}
          required
          onChange={(event) => setField('phone', normalizePhone(event.target.value))}
          onPaste={handlePhonePaste}
        />

        {/* The honeypot: off-screen and hidden from assistive technology, out of the tab
            order, never autofilled. Uncontrolled, so React never writes to it. */}
        <div className="trap" aria-hidden="true">
          <label htmlFor={`field-${trapField}`}>{ar.fieldTrap}</label>
          <input id={`field-${trapField}`} name={trapField} tabIndex={-1} autoComplete="off" />
        </div>

        <p id={errorId} className="message error" role="alert">
          {error}
        </p>
        <p className="message success" role="status">
          {success}
        </p>

        <div className="actions">
          <button type="submit" disabled={submitting || !hydrated}>
            {submitting ? ar.buttonSubmitting : ar.buttonSubmit}
          </button>
          {/* A plain link: '/' is the provider's site, outside this app. */}
          <a className="button secondary" href="/">
            {ar.buttonBack}
          </a>
        </div>
      </form>
    </main>
  );
}
