import { createHmac } from 'node:crypto';
import {
  createChallenge,
  randomInt,
  verifySolution,
  type Challenge,
  type Payload,
} from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { Redis } from 'ioredis';

// About a second or two on a mid-range phone (PBKDF2 in WebCrypto), solved while the person
// types; to a script it is that second for every lead, on every core it owns.
const cost = 1_000;
const counters = [1_000, 5_000] as const;
const lifetimeSeconds = 10 * 60;

/** ALTCHA's challenge and its check: self-hosted, no third party, no cookie. */
export interface ProofOfWork {
  challenge(): Promise<Challenge>;
  /**
   * Whether `payload` (base64 JSON of challenge and solution, as ALTCHA's widget sends it)
   * solves an unexpired challenge signed here that no sign-up used before.
   */
  verify(payload: string | undefined): Promise<boolean>;
}

function decode(payload: string): Payload | undefined {
  try {
    const decoded = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as Payload;
    return typeof decoded?.challenge?.signature === 'string' && decoded.solution
      ? decoded
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `hmacKey` signs the challenges. A solved challenge is spent: in Redis when instances share
 * one (so no instance takes it twice), else in this process's memory, until it expires.
 * Real time, not the app's clock: ALTCHA checks the expiry against it.
 */
export function createProofOfWork(hmacKey: string, redis: Redis | undefined): ProofOfWork {
  const secrets = {
    hmacSignatureSecret: hmacKey,
    // Deterministic mode: the server checks a signed key instead of redoing the work.
    hmacKeySignatureSecret: createHmac('sha256', hmacKey).update('altcha key').digest('hex'),
  };
  const spentHere = new Map<string, number>();

  async function spend(signature: string, expiresAt: number): Promise<boolean> {
    if (redis !== undefined) {
      const seconds = Math.max(1, Math.ceil(expiresAt - Date.now() / 1000));
      return (await redis.set(`altcha:${signature}`, '1', 'EX', seconds, 'NX')) === 'OK';
    }
    const nowSeconds = Date.now() / 1000;
    for (const [spent, until] of spentHere) if (until < nowSeconds) spentHere.delete(spent);
    if (spentHere.has(signature)) return false;
    spentHere.set(signature, expiresAt);
    return true;
  }

  return {
    challenge: () =>
      createChallenge({
        algorithm: 'PBKDF2/SHA-256',
        cost,
        counter: randomInt(...counters),
        deriveKey,
        expiresAt: new Date(Date.now() + lifetimeSeconds * 1000),
        ...secrets,
      }),
    async verify(payload) {
      const decoded = payload === undefined ? undefined : decode(payload);
      if (decoded === undefined) return false;
      const result = await verifySolution({ ...decoded, deriveKey, ...secrets });
      const { signature, parameters } = decoded.challenge;
      return (
        result.verified &&
        signature !== undefined &&
        (await spend(signature, parameters.expiresAt ?? 0))
      );
    },
  };
}
