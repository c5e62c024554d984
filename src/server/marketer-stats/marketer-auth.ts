import {
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import type { MarketerAuthConfig } from '../env';

/** The roles of the provider's platform that have a marketer's link. */
export const marketerRoles = ['marketing', 'team_leader_marketing'] as const;

// What a JWKS may publish: asymmetric only, so a public key can never serve as an HMAC secret.
const publicKeyAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

export type MarketerCheck =
  /** team: a team leader's members, as the token lists them; never set for a plain marketer. */
  | { kind: 'marketer'; marketingId: string; team?: string[] }
  /** No token, or one that is not valid now: 401. */
  | { kind: 'refused' }
  /** A valid token of someone who is not a marketer: 403. */
  | { kind: 'forbidden' }
  /** The platform's keys could not be fetched: no verdict on the token (503). */
  | { kind: 'unavailable'; error: unknown };

export type MarketerVerifier = (token: string) => Promise<MarketerCheck>;

/**
 * Verifies the platform's tokens. The key set is fetched once and cached; a token naming a
 * `kid` it does not hold fetches it again (at most every 30 s: made-up kids cannot flood the
 * platform), so a rotated key is accepted without a restart.
 */
export function createMarketerVerifier(config: MarketerAuthConfig): MarketerVerifier {
  const key: JWTVerifyGetKey | Uint8Array =
    config.keys.kind === 'jwks'
      ? createRemoteJWKSet(new URL(config.keys.url))
      : new TextEncoder().encode(config.keys.secret);
  const options: JWTVerifyOptions = {
    algorithms: config.keys.kind === 'jwks' ? publicKeyAlgorithms : ['HS256'],
    issuer: config.issuer,
    audience: config.audience,
    requiredClaims: ['exp', 'sub'],
    clockTolerance: 60,
  };
  return async (token) => {
    let payload;
    try {
      ({ payload } =
        key instanceof Uint8Array
          ? await jwtVerify(token, key, options)
          : await jwtVerify(token, key, options));
    } catch (error) {
      // The key set out of reach (no answer, not 200, not a key set) is the platform's trouble,
      // not the token's: refusing would hide a marketer's numbers as if they were signed out.
      // jose throws its base JOSEError only for the key set's HTTP answer.
      if (
        !(error instanceof errors.JOSEError) ||
        error instanceof errors.JWKSTimeout ||
        error instanceof errors.JWKSInvalid ||
        error.code === errors.JOSEError.code
      ) {
        return { kind: 'unavailable', error };
      }
      return { kind: 'refused' };
    }
    const { sub, role } = payload;
    if (typeof sub !== 'string' || sub === '') return { kind: 'refused' };
    if (!marketerRoles.includes(role as (typeof marketerRoles)[number])) {
      return { kind: 'forbidden' };
    }
    // Only a team leader has a team, whatever claims a marketer's token carries.
    if (role !== 'team_leader_marketing') return { kind: 'marketer', marketingId: sub };
    return { kind: 'marketer', marketingId: sub, team: teamOf(payload[config.teamClaim]) };
  };
}

/**
 * The members a leader's token lists: marketer ids, as text or whole numbers, each once and in
 * the token's order. A claim that is missing, or not a list, is no member.
 */
function teamOf(claim: unknown): string[] {
  if (!Array.isArray(claim)) return [];
  const ids = claim
    .map((id) => (typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : id))
    .filter((id): id is string => typeof id === 'string' && id !== '');
  return [...new Set(ids)];
}

/** The token of a request: `Authorization: Bearer …`, else the named cookie. */
export function tokenOf(
  headers: { authorization?: string; cookie?: string },
  cookieName: string | undefined,
): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return bearer;
  if (cookieName === undefined || headers.cookie === undefined) return undefined;
  for (const pair of headers.cookie.split(';')) {
    const separator = pair.indexOf('=');
    if (separator !== -1 && pair.slice(0, separator).trim() === cookieName) {
      return pair.slice(separator + 1).trim() || undefined;
    }
  }
  return undefined;
}
