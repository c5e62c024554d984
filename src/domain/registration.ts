import { z } from 'zod';
import { buildNotes, type RouteAttribution } from './notes';
import { phonePattern } from './phone';

export const nameMaxLength = 100;
export const emailMaxLength = 254;
export const notesMaxLength = 500;

/**
 * The one contract between the form and the server (SPEC §3 and §5). The e-mail rule is the
 * HTML standard's, the same check the browser makes on type=email, so the two never disagree.
 */
export const registrationSchema = z.strictObject({
  name: z.string().trim().min(1).max(nameMaxLength),
  email: z
    .string()
    .trim()
    .max(emailMaxLength)
    .refine((email) => email === '' || z.regexes.html5Email.test(email))
    .optional(),
  phone: z.string().regex(phonePattern),
  notes: z.string().max(notesMaxLength),
  marketing_id: z
    .union([z.string(), z.number().int().nonnegative()])
    .transform(String)
    .pipe(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/))
    .optional(),
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
  if (route.marketerId !== undefined) payload.marketing_id = route.marketerId;
  return payload;
}
