import { createHmac } from 'node:crypto';

/**
 * A form's stamp as the server signs it with FORM_STAMP_KEY `key`
 * (src/server/registrations/sign-up-evidence.ts): the time the form was served, in ms, and its
 * signature. Made here as the served page would carry it, so that a sign-up comes with a valid
 * stamp without a page served for each.
 */
export function formStamp(key: string, servedAtMs: number): string {
  const mac = createHmac('sha256', key).update(`form stamp\n${servedAtMs}`).digest();
  return `${servedAtMs}.${mac.subarray(0, 16).toString('base64url')}`;
}
