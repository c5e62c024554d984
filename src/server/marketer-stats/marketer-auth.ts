import {
  createLocalJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { emailSchema, storable } from '../../domain/registration';
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

export type TokenCheck =
  /**
   * A valid token: its subject and role (each route says which roles it serves: 403 for the
   * others). team: a team leader's members, as the token lists them; never set for another
   * role, nor for a leader whose token carries no list (the directory's team counts then).
   * email: the token's `email` claim when it is an address (the notifications' address when the
   * directory has none, docs/notifications.md).
   */
  | { kind: 'user'; sub: string; role: string; team?: string[]; email?: string }
  /** No token, or one that is not valid now: 401. */
  | { kind: 'refused' }
  /** The platform's keys could not be fetched: no verdict on the token (503). */
  | { kind: 'unavailable' };

export type TokenVerifier = (token: string) => Promise<TokenCheck>;

// The key set is fetched again once it is this old, or when a token names a kid it lacks.
const keysFreshMs = 10 * 60_000;
// At most one fetch in this long, whether the last one worked or not: neither made-up kids nor
// a platform that fails turn requests into fetches.
const fetchIntervalMs = 30_000;
// While the platform fails, the last good keys serve this long: a key is not revoked by an
// outage, and marketers keep their numbers.
const keysKeptMs = 24 * 60 * 60_000;
const fetchTimeoutMs = 5_000;

/** The platform's key set could not be had: no verdict on the token. */
class KeySetUnavailable extends Error {
  constructor(cause: unknown) {
    super("the platform's keys (JWKS) could not be fetched", { cause });
  }
}

/** The platform's keys at `url`, fetched as the constants above say; each failure told once. */
function remoteKeySet(url: string, onFetchFailed: (error: unknown) => void): JWTVerifyGetKey {
  let keys: { find: JWTVerifyGetKey; fetchedAt: number } | undefined;
  let attemptedAt = -Infinity;
  let lastError: unknown;
  let pending: Promise<void> | undefined;

  async function fetchKeys(): Promise<void> {
    try {
      const response = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(fetchTimeoutMs),
      });
      if (!response.ok) throw new Error(`the key set answered ${response.status}`);
      // Throws on anything that is not a key set.
      const find = createLocalJWKSet((await response.json()) as JSONWebKeySet);
      keys = { find, fetchedAt: Date.now() };
    } catch (error) {
      lastError = error;
      onFetchFailed(error);
    }
  }

  function refresh(): Promise<void> {
    if (pending !== undefined || Date.now() - attemptedAt < fetchIntervalMs) {
      return pending ?? Promise.resolve();
    }
    attemptedAt = Date.now();
    pending = fetchKeys().finally(() => (pending = undefined));
    return pending;
  }

  return async (header, token) => {
    if (keys === undefined || Date.now() - keys.fetchedAt > keysFreshMs) await refresh();
    if (keys === undefined || Date.now() - keys.fetchedAt > keysKeptMs) {
      throw new KeySetUnavailable(lastError);
    }
    try {
      return await keys.find(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A kid it does not hold: perhaps a rotated key, published since the last fetch.
      await refresh();
      return keys.find(header, token);
    }
  };
}

/**
 * Verifies the platform's tokens. The key set is fetched, cached and kept through the
 * platform's outages as remoteKeySet says, so a rotated key is accepted without a restart.
 */
export function createTokenVerifier(
  config: MarketerAuthConfig,
  onFetchFailed: (error: unknown) => void = () => {},
): TokenVerifier {
  const key: JWTVerifyGetKey | Uint8Array =
    config.keys.kind === 'jwks'
      ? remoteKeySet(config.keys.url, onFetchFailed)
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
      // The key set out of reach is the platform's trouble, not the token's: refusing would
      // hide a marketer's numbers as if they were signed out.
      if (error instanceof KeySetUnavailable) return { kind: 'unavailable' };
      if (!(error instanceof errors.JOSEError)) throw error;
      return { kind: 'refused' };
    }
    const { sub, role, exp, iat } = payload;
    // A subject that could not be stored (NUL, which PostgreSQL refuses in text, among them)
    // names no one the server knows, nor can it sign a decision.
    if (typeof sub !== 'string' || sub === '' || !storable(sub)) return { kind: 'refused' };
    // A token made to live longer than the limit is refused: exp from its iat, or from now
    // without one (exp: 1e308 would otherwise never expire).
    const issuedAt = typeof iat === 'number' ? iat : Date.now() / 1000;
    if (exp === undefined || exp - issuedAt > config.maxAgeMs / 1000) return { kind: 'refused' };
    const email = emailOf(payload.email);
    const user = { kind: 'user' as const, sub, ...(email !== undefined && { email }) };
    if (typeof role !== 'string') return { ...user, role: '' };
    // Only a team leader has a team, whatever claims another token carries.
    if (role !== 'team_leader_marketing') return { ...user, role };
    return { ...user, role, team: teamOf(payload[config.teamClaim]) };
  };
}

/** The token's `email` claim, when it is one address as a sign-up's would be; else none. */
function emailOf(claim: unknown): string | undefined {
  if (typeof claim !== 'string') return undefined;
  const parsed = emailSchema.safeParse(claim);
  return parsed.success && parsed.data !== '' ? parsed.data : undefined;
}

/**
 * The members a leader's token lists: marketer ids, as text or whole numbers, each once and in
 * the token's order; an id that could not be stored names no marketer. A claim that is missing,
 * or not a list, is no claim: undefined.
 */
function teamOf(claim: unknown): string[] | undefined {
  if (!Array.isArray(claim)) return undefined;
  const ids = claim
    .map((id) => (typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : id))
    .filter((id): id is string => typeof id === 'string' && id !== '' && storable(id));
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
