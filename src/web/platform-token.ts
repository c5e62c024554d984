import { marketerStatsMeta } from '../domain/marketer-stats';

/**
 * The localStorage key of the provider platform's token, which the server names in its
 * `<meta name="marketer-stats">` when marketer auth is configured; null when it is not.
 */
export function platformTokenKey(): string | null {
  return (
    document.querySelector(`meta[name="${marketerStatsMeta}"]`)?.getAttribute('content') ?? null
  );
}

/** The platform's token, as it left it in localStorage (some store it as a JSON string). */
function storedToken(storageKey: string): string | undefined {
  let value: string | null;
  try {
    value = window.localStorage.getItem(storageKey);
  } catch {
    return undefined;
  }
  if (value === null || value === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'string') return parsed;
  } catch {
    // A bare token is not JSON: it is used as it is.
  }
  return value;
}

/** A GET of the numbers' API with the stored token, when there is one. */
export function fetchWithToken(url: string, storageKey: string, signal?: AbortSignal) {
  const token = storedToken(storageKey);
  // Same origin, so the platform's session cookie goes too when the server reads one.
  return fetch(url, {
    credentials: 'same-origin',
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal,
  });
}

/** A POST of JSON to the numbers' API with the stored token, when there is one. */
export function postWithToken(url: string, storageKey: string, body: unknown) {
  return sendWithToken('POST', url, storageKey, body);
}

/** A PUT of JSON (the e-mails' choices) with the stored token, when there is one. */
export function putWithToken(url: string, storageKey: string, body: unknown) {
  return sendWithToken('PUT', url, storageKey, body);
}

function sendWithToken(method: 'POST' | 'PUT', url: string, storageKey: string, body: unknown) {
  const token = storedToken(storageKey);
  return fetch(url, {
    method,
    credentials: 'same-origin',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
}
