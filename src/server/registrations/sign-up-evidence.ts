import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { addressHashOf } from '../visits/visit-counter';
import type { VisitSalts } from '../visits/visit-salts';
import type { SignUpEvidence } from './registration-repository';

/** What the flags need of a sign-up besides its fields (docs/flags.md). */
export interface SignUpEvidenceSource {
  /** The stamp of a form served at `at`: its time in ms, signed. */
  stamp(at: Date): string;
  /** A sign-up's evidence: its address hashed as the visits' are, and its form's stamp's time. */
  of(ip: string, stamp: string | undefined, at: Date): Promise<SignUpEvidence>;
}

// The day's salt is read once a minute at most: with Redis each read is a round trip, and a
// sign-up must not wait on one. A salt never changes within its day.
const saltKeptMs = 60_000;

/**
 * Stamps are signed with `key` (FORM_STAMP_KEY), which instances share so that each checks
 * the others' stamps; without one, each instance signs with a key of its own, and a stamp of
 * another instance, or from before a restart, is a bad stamp: not checked, never a flag.
 */
export function createSignUpEvidence(
  key: string | undefined,
  salts: VisitSalts,
): SignUpEvidenceSource {
  const secret = key ?? randomBytes(32).toString('base64url');
  const mac = (ms: string) =>
    createHmac('sha256', secret).update(`form stamp\n${ms}`).digest().subarray(0, 16);
  let kept: { day: string; salt: string; until: number } | undefined;

  async function saltOf(day: string, at: Date): Promise<string> {
    if (kept?.day === day && at.getTime() < kept.until) return kept.salt;
    const salt = await salts.salt(day);
    kept = { day, salt, until: at.getTime() + saltKeptMs };
    return salt;
  }

  function servedAt(stamp: string | undefined): Date | null {
    const match = /^(\d{1,15})\.([A-Za-z0-9_-]{22})$/.exec(stamp ?? '');
    if (match === null) return null;
    const [, ms = '', signature = ''] = match;
    const given = Buffer.from(signature, 'base64url');
    return given.length === 16 && timingSafeEqual(given, mac(ms)) ? new Date(Number(ms)) : null;
  }

  return {
    stamp: (at) => `${at.getTime()}.${mac(String(at.getTime())).toString('base64url')}`,
    of: async (ip, stamp, at) => ({
      addressHash: addressHashOf(ip, await saltOf(at.toISOString().slice(0, 10), at)),
      servedAt: servedAt(stamp),
    }),
  };
}
