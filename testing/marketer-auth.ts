import { SignJWT } from 'jose';

/** The shared secret of the browser tests' server (MARKETER_AUTH_SECRET): HS256 tokens. */
export const e2eMarketerAuthSecret = 'e2e-only-secret-of-the-provider-platform';

/** A token as the provider's platform would leave it in the browser, valid for an hour. */
export function marketerToken(marketingId: string, role = 'marketing'): Promise<string> {
  return new SignJWT({ role })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(marketingId)
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(e2eMarketerAuthSecret));
}
