import { SignJWT, type JWTPayload } from 'jose';

/** The shared secret of the browser tests' server (MARKETER_AUTH_SECRET): HS256 tokens. */
export const e2eMarketerAuthSecret = 'e2e-only-secret-of-the-provider-platform';

/** The browser tests' server's LEADS_API_KEY: the CRM tells it what became of a lead. */
export const e2eLeadsApiKey = 'e2e-only-key-of-the-providers-crm-0123456789';

/** The browser tests' server's PEOPLE_API_KEY: the platform puts the programme's people. */
export const e2ePeopleApiKey = 'e2e-only-key-of-the-providers-platform-0123';

/**
 * A token as the provider's platform would leave it in the browser, valid for an hour; `claims`
 * adds others (a team leader's `team`).
 */
export function marketerToken(
  marketingId: string,
  role = 'marketing',
  claims: JWTPayload = {},
): Promise<string> {
  return new SignJWT({ ...claims, role })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(marketingId)
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(e2eMarketerAuthSecret));
}
