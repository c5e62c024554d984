// zod/mini, not zod: the same schema and checks, but tree-shaken into the chunk the form loads
// to send (about 7 KB gzip instead of about 24 KB for the chainable API). The server's type
// provider takes any zod 4 schema (zod/v4/core), so the form and the server still share this one.
import * as z from 'zod/mini';
import { formStampField, nameMaxLength, privacyVersionField, trapField } from './form-fields';
import { marketingIdPattern } from './links';
import { buildNotes, isPageNotes, type RouteAttribution } from './notes';
import { phonePattern } from './phone';

export const emailMaxLength = 254;
export const notesMaxLength = 500;

// Control characters (NUL among them) and lone UTF-16 surrogates are never typed in a name,
// and neither survives storage: PostgreSQL refuses NUL in text, and a lone surrogate has no
// UTF-8 form (it would come back as U+FFFD). Refused here, nothing is stored other than sent.
// Neither are the characters that make text lie about itself: bidi embeddings, overrides and
// isolates (they reorder what a reader of the export sees), line and paragraph separators,
// tag characters, and U+FFFD (what invalid UTF-8 became). The marks Arabic keyboards type
// (LRM, RLM, ALM) stay. The server holds other text people send to this rule too (a decision's
// note, a token's subject).
export const storable = (text: string) =>
  !/[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069\u2028\u2029\u{E0000}-\u{E007F}\uFFFD]/u.test(text);

// A name must show something: one letter or digit at least, not only invisible characters.
// The Hangul fillers (U+3164, U+115F, U+1160, U+FFA0) are letters that render blank: Unicode
// lists them, with the zero-width characters, as default ignorable, and so do not count.
const visibleName = (name: string) =>
  /(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{N}]/u.test(name);

// The privacy notice's version (privacyVersionField) and the form's stamp (formStampField).
export const privacyVersionMaxLength = 40;
export const formStampMaxLength = 100;

/** The campaign parameters a page's URL may carry, sent with a sign-up under the same names. */
export const utmFields = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
] as const;
export type UtmField = (typeof utmFields)[number];
/** The campaign parameters a sign-up or a visit came with: only those present. */
export type Utm = Partial<Record<UtmField, string>>;
export const utmMaxLength = 100;

/** Stored campaign parameters (null for absent), as an object of those present. */
export function utmOf(stored: Record<UtmField, string | null>): Utm {
  const utm: Utm = {};
  for (const field of utmFields) {
    const value = stored[field];
    if (value !== null) utm[field] = value;
  }
  return utm;
}

const utmValue = z.optional(
  z.string().check(z.trim(), z.minLength(1), z.maxLength(utmMaxLength), z.refine(storable)),
);

/**
 * The campaign parameters of a page's query string, as a sign-up sends them: trimmed, cut to
 * utmMaxLength, and left out when empty or holding a character the schema refuses. An ad's
 * link is written by whoever set up the campaign, so a bad one must never cost a sign-up.
 */
export function utmFromQuery(query: { get(name: string): string | null }): Utm {
  const utm: Utm = {};
  for (const field of utmFields) {
    let value = query.get(field)?.trim().slice(0, utmMaxLength);
    // A cut between the halves of a surrogate pair (an emoji) leaves half a character.
    if (value !== undefined && /[\uD800-\uDBFF]$/.test(value)) value = value.slice(0, -1);
    value = value?.trim();
    if (value && storable(value)) utm[field] = value;
  }
  return utm;
}

/** A person's name, as a sign-up's and the programme's people's are held. */
export const nameSchema = z
  .string()
  // NFC, so that one name typed on two keyboards is stored, searched and exported alike.
  .check(
    z.trim(),
    z.normalize('NFC'),
    z.minLength(1),
    z.maxLength(nameMaxLength),
    z.refine(storable),
    z.refine(visibleName),
  );

/** An e-mail address, or '' for none. */
export const emailSchema = z.string().check(
  z.trim(),
  z.maxLength(emailMaxLength),
  z.refine((email) => email === '' || z.regexes.html5Email.test(email)),
);

/** A marketer's id, as text or as a whole number (a platform's JSON may send one), as text. */
export const marketingIdSchema = z.pipe(
  z.pipe(z.union([z.string(), z.int().check(z.nonnegative())]), z.transform(String)),
  z.string().check(z.regex(marketingIdPattern)),
);

/**
 * The one contract between the form and the server (docs/product.md §3 and §5). The e-mail rule is the
 * HTML standard's, the same check the browser makes on type=email, so the two never disagree.
 */
export const registrationSchema = z.strictObject({
  name: nameSchema,
  email: z.optional(emailSchema),
  phone: z.string().check(z.regex(phonePattern)),
  notes: z.string().check(z.maxLength(notesMaxLength), z.refine(isPageNotes)),
  // The honeypot: people never see this field, so only a bot fills it.
  [trapField]: z.optional(z.string().check(z.maxLength(nameMaxLength))),
  // The version of the privacy notice the page showed ('' for a notice without one); absent
  // when the sender names none, and then the submission is recorded as not attesting one.
  [privacyVersionField]: z.optional(
    z.string().check(z.trim(), z.maxLength(privacyVersionMaxLength), z.refine(storable)),
  ),
  // The form's stamp, as the server served it; a missing or bad one only goes unchecked.
  [formStampField]: z.optional(z.string().check(z.maxLength(formStampMaxLength))),
  // A solved proof-of-work challenge (base64 JSON), when the server asks for one.
  altcha: z.optional(z.string().check(z.maxLength(4_000))),
  marketing_id: z.optional(marketingIdSchema),
  // The page's campaign parameters (utmFromQuery): where the lead came from, not who it is.
  utm_source: utmValue,
  utm_medium: utmValue,
  utm_campaign: utmValue,
  utm_term: utmValue,
  utm_content: utmValue,
});

export type RegistrationPayload = z.input<typeof registrationSchema>;
export type Registration = z.output<typeof registrationSchema>;

export interface FormValues {
  name: string;
  email: string;
  phone: string;
}

/**
 * The JSON body the form sends: marketing_id only when the route names a marketer, the page's
 * campaign parameters (utmFromQuery) that are present, and the version of the privacy notice
 * the page showed, when it showed one.
 */
export function buildPayload(
  values: FormValues,
  route: RouteAttribution,
  utm: Utm = {},
  privacyVersion?: string,
): RegistrationPayload {
  const payload: RegistrationPayload = { ...values, notes: buildNotes(route), ...utm };
  if (route.marketingId !== undefined) payload.marketing_id = route.marketingId;
  if (privacyVersion !== undefined) payload[privacyVersionField] = privacyVersion;
  return payload;
}
