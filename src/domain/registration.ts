// zod/mini, not zod: the same schema and checks, but tree-shaken into the form's bundle
// (about 7 KB gzip instead of about 24 KB for the chainable API). The server's type provider
// takes any zod 4 schema (zod/v4/core), so the form and the server still share this one.
import * as z from 'zod/mini';
import { buildNotes, type RouteAttribution } from './notes';
import { phonePattern } from './phone';

export const nameMaxLength = 100;
export const emailMaxLength = 254;
export const notesMaxLength = 500;

// Control characters (NUL among them) and lone UTF-16 surrogates are never typed in a name,
// and neither survives storage: PostgreSQL refuses NUL in text, and a lone surrogate has no
// UTF-8 form (it would come back as U+FFFD). Refused here, nothing is stored other than sent.
const storable = (text: string) => !/[\p{Cc}\p{Cs}]/u.test(text);

/** A marketer's id, as sent in marketing_id and as found in a link. */
export const marketingIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The one contract between the form and the server (docs/product.md §3 and §5). The e-mail rule is the
 * HTML standard's, the same check the browser makes on type=email, so the two never disagree.
 */
export const registrationSchema = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(nameMaxLength), z.refine(storable)),
  email: z.optional(
    z.string().check(
      z.trim(),
      z.maxLength(emailMaxLength),
      z.refine((email) => email === '' || z.regexes.html5Email.test(email)),
    ),
  ),
  phone: z.string().check(z.regex(phonePattern)),
  notes: z.string().check(z.maxLength(notesMaxLength), z.refine(storable)),
  marketing_id: z.optional(
    z.pipe(
      z.pipe(z.union([z.string(), z.int().check(z.nonnegative())]), z.transform(String)),
      z.string().check(z.regex(marketingIdPattern)),
    ),
  ),
});

export type RegistrationPayload = z.input<typeof registrationSchema>;
export type Registration = z.output<typeof registrationSchema>;

export interface FormValues {
  name: string;
  email: string;
  phone: string;
}

/** The JSON body the form sends: marketing_id only when the route names a marketer. */
export function buildPayload(values: FormValues, route: RouteAttribution): RegistrationPayload {
  const payload: RegistrationPayload = { ...values, notes: buildNotes(route) };
  if (route.marketingId !== undefined) payload.marketing_id = route.marketingId;
  return payload;
}
