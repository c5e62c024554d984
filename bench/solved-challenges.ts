import { createHmac } from 'node:crypto';
import { createChallenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';

/**
 * Proof-of-work payloads as the form sends them, made before a timed run: signed with the
 * server's ALTCHA_HMAC_KEY as its own are, but at a cost of one PBKDF2 round, so that tens of
 * thousands take seconds to solve rather than hours. The server checks the signed key, never
 * the work, so it treats them as any solved challenge: what is measured is its side.
 */
export async function solvedChallenges(hmacKey: string, count: number): Promise<string[]> {
  const secrets = {
    hmacSignatureSecret: hmacKey,
    hmacKeySignatureSecret: createHmac('sha256', hmacKey).update('altcha key').digest('hex'),
  };
  const expiresAt = new Date(Date.now() + 60 * 60 * 1000);
  const solve = async () => {
    const challenge = await createChallenge({
      algorithm: 'PBKDF2/SHA-256',
      cost: 1,
      counter: 0,
      deriveKey,
      expiresAt,
      ...secrets,
    });
    const solution = await solveChallenge({ challenge, deriveKey });
    return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
  };
  const payloads: string[] = [];
  // A few hundred at a time: WebCrypto's PBKDF2 runs on libuv's threads.
  while (payloads.length < count) {
    const chunk = Math.min(500, count - payloads.length);
    payloads.push(...(await Promise.all(Array.from({ length: chunk }, solve))));
  }
  return payloads;
}
