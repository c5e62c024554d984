import { arForm } from '../domain/catalogue/form';
import type { Registration } from '../domain/registration';
import { apiBaseUrl } from './env';

export type PostRegistrationResult = { ok: true } | { ok: false; error: string };

/** The one call the pages make (docs/product.md §7). It never throws: every failure becomes a message. */
export async function postRegistration(
  registration: Registration,
): Promise<PostRegistrationResult> {
  try {
    const response = await fetch(`${apiBaseUrl}/api/external-register`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registration),
    });
    // The form needs nothing from a successful answer, so it is not read (docs/product.md §7).
    if (response.ok) return { ok: true };
    return { ok: false, error: await errorOf(response) };
  } catch {
    return { ok: false, error: arForm.errorGeneric };
  }
}

async function errorOf(response: Response): Promise<string> {
  try {
    const body: unknown = await response.json();
    if (typeof body === 'object' && body !== null && 'error' in body) {
      const { error } = body;
      if (typeof error === 'string' && error.trim() !== '') return error;
    }
  } catch {
    // Not JSON (a proxy's HTML error page, say): fall through to the generic text.
  }
  return arForm.errorGeneric;
}
