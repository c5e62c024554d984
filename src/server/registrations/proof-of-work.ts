import { createHmac } from 'node:crypto';
import {
  createChallenge,
  randomInt,
  verifySolution,
  type Challenge,
  type Payload,
} from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Tables } from '../db/schema';

// About a second or two on a mid-range phone (PBKDF2 in WebCrypto), solved while the person
// types; to a script it is that second for every lead, on every core it owns.
const cost = 1_000;
const counters = [1_000, 5_000] as const;
const lifetimeSeconds = 10 * 60;

/** ALTCHA's challenge and its check: self-hosted, no third party, no cookie. */
export interface ProofOfWork {
  challenge(): Promise<Challenge>;
  /**
   * The challenge `payload` (base64 JSON of challenge and solution, as ALTCHA's widget sends
   * it) solves, when it is unexpired and was signed here; undefined otherwise. Whether a sign-up
   * used it before is the sign-up's transaction's to tell (spendChallenges).
   */
  solved(payload: string | undefined): Promise<SolvedChallenge | undefined>;
}

/** A solved challenge: its signature, and when it expires (ISO text). */
export interface SolvedChallenge {
  signature: string;
  expiresAt: string;
}

// ALTCHA's payload, as its widget sends it. The library reads the fields without checking
// them (a missing one threw, a 500), so the shape is checked first. Loose objects: the
// signature covers the parameters as sent, a field unknown here included.
const payloadSchema = z.object({
  challenge: z.looseObject({
    parameters: z.looseObject({
      algorithm: z.string(),
      nonce: z.string(),
      salt: z.string(),
      cost: z.number(),
      keyLength: z.number(),
      keyPrefix: z.string(),
      expiresAt: z.optional(z.number()),
    }),
    signature: z.string(),
  }),
  solution: z.looseObject({ counter: z.number(), derivedKey: z.string() }),
});

function decode(payload: string): (Payload & { challenge: { signature: string } }) | undefined {
  try {
    const parsed = payloadSchema.safeParse(
      JSON.parse(Buffer.from(payload, 'base64').toString('utf8')),
    );
    return parsed.success
      ? (parsed.data as Payload & { challenge: { signature: string } })
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `hmacKey` signs the challenges. Real time, not the app's clock: ALTCHA checks the expiry
 * against it.
 */
export function createProofOfWork(hmacKey: string): ProofOfWork {
  const secrets = {
    hmacSignatureSecret: hmacKey,
    // Deterministic mode: the server checks a signed key instead of redoing the work.
    hmacKeySignatureSecret: createHmac('sha256', hmacKey).update('altcha key').digest('hex'),
  };

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
    async solved(payload) {
      const decoded = payload === undefined ? undefined : decode(payload);
      if (decoded === undefined) return undefined;
      const result = await verifySolution({ ...decoded, deriveKey, ...secrets });
      const { signature, parameters } = decoded.challenge;
      const expiresAt = new Date((parameters.expiresAt ?? 0) * 1000).toISOString();
      return result.verified ? { signature, expiresAt } : undefined;
    },
  };
}

/**
 * Spends solved challenges in a sign-up batch's transaction, in the database every instance
 * shares (Redis or not), until they expire: the signatures spent now, each by the first of the
 * batch that sent it. One that is missing was spent before, and its sign-up is refused.
 */
export async function spendChallenges(
  trx: Kysely<Tables>,
  challenges: SolvedChallenge[],
): Promise<Set<string>> {
  const unique = [...new Map(challenges.map((c) => [c.signature, c])).values()];
  if (unique.length === 0) return new Set();
  const spent = await trx
    .insertInto('spent_challenges')
    .values(unique.map((c) => ({ signature: c.signature, expires_at: c.expiresAt })))
    .onConflict((oc) => oc.column('signature').doNothing())
    .returning('signature')
    .execute();
  return new Set(spent.map((row) => row.signature));
}

/** Expired challenges are of no use: the sign-up batch drops them at most once a minute. */
export async function dropExpiredChallenges(trx: Kysely<Tables>, now: Date): Promise<void> {
  await trx.deleteFrom('spent_challenges').where('expires_at', '<', now.toISOString()).execute();
}
