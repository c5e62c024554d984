import { createHmac } from 'node:crypto';
import {
  createChallenge,
  randomInt,
  verifySolution,
  type Challenge,
  type Payload,
} from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { z } from 'zod';
import type { Database } from '../db/schema';
import { guarded } from '../db/database';

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
 * `hmacKey` signs the challenges. A solved challenge is spent in the database, which every
 * instance shares (Redis or not, up or down), until it expires: no instance takes it twice.
 * Real time, not the app's clock: ALTCHA checks the expiry against it.
 */
export function createProofOfWork(hmacKey: string, database: Database): ProofOfWork {
  const secrets = {
    hmacSignatureSecret: hmacKey,
    // Deterministic mode: the server checks a signed key instead of redoing the work.
    hmacKeySignatureSecret: createHmac('sha256', hmacKey).update('altcha key').digest('hex'),
  };
  let purgedAt = 0;

  // Out of reach, the database is a 503 as for the sign-up it guards, never a 500.
  const spend = (signature: string, expiresAt: number) =>
    guarded(database, async () => {
      const now = Date.now();
      // The expired ones are of no use: gone at most once a minute per instance.
      if (now - purgedAt > 60_000) {
        purgedAt = now;
        await database.db
          .deleteFrom('spent_challenges')
          .where('expires_at', '<', new Date(now).toISOString())
          .execute();
      }
      const result = await database.db
        .insertInto('spent_challenges')
        .values({ signature, expires_at: new Date(expiresAt * 1000).toISOString() })
        .onConflict((oc) => oc.column('signature').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    });

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
      return result.verified && (await spend(signature, parameters.expiresAt ?? 0));
    },
  };
}
