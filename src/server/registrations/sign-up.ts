import { randomUUID } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { formStampField, trapField } from '../../domain/form-fields';
import type { Registration } from '../../domain/registration';
import { DatabaseUnavailableError } from '../db/database';
import type { SignUpChannel } from '../db/schema';
import type { ProofOfWork } from './proof-of-work';
import { ChallengeSpentError, type RegistrationRepository } from './registration-repository';
import type { SignUpEvidenceSource } from './sign-up-evidence';

/** How many times the per-address limit one IPv6 /48 may send. */
export const ipv6SitesShare = 4;

/** What a sign-up needs, whichever way it came: the JSON API or the HTML form. */
export interface SignUpOptions {
  repository: RegistrationRepository;
  /** Set (ALTCHA_HMAC_KEY): a sign-up must carry a solved challenge of GET /api/altcha-challenge. */
  proofOfWork: ProofOfWork | undefined;
  now: () => Date;
  rateLimitPerMinute: number;
  /** Stamps the forms served, and gives what the flags need of a sign-up (docs/flags.md). */
  evidence: SignUpEvidenceSource;
}

/**
 * A validated sign-up's fate: stored (a repeat too, with its lead's id), caught by the
 * honeypot (a fresh id of the same kind, so a bot learns nothing), or refused for want of a
 * solved proof-of-work challenge.
 */
export type SignUpResult = { kind: 'stored' | 'trapped'; id: string } | { kind: 'unsolved' };

/**
 * The one write path of a sign-up, after validation: the honeypot, the proof of work, the row
 * (which records the channel it came by). It marks the request with what it did, for the metrics.
 */
export async function signUp(
  registration: Registration,
  channel: SignUpChannel,
  { repository, proofOfWork, now, evidence }: SignUpOptions,
  request: FastifyRequest,
): Promise<SignUpResult> {
  if (registration[trapField]) {
    request.log.info('honeypot filled: sign-up not stored');
    request.signUpOutcome = 'honeypot';
    return { kind: 'trapped', id: randomUUID() };
  }
  const challenge = await proofOfWork?.solved(registration.altcha);
  const unsolved = () => {
    request.signUpOutcome = 'challenge';
    return { kind: 'unsolved' } as const;
  };
  if (proofOfWork !== undefined && challenge === undefined) return unsolved();
  try {
    const at = now();
    const { id, repeat } = await repository.register(registration, at, channel, {
      challenge,
      evidence: await evidence.of(request.ip, registration[formStampField], at),
    });
    request.signUpOutcome = repeat ? 'repeat' : 'created';
    return { kind: 'stored', id };
  } catch (error) {
    if (error instanceof ChallengeSpentError) return unsolved();
    if (error instanceof DatabaseUnavailableError) request.signUpOutcome = 'database_unavailable';
    throw error;
  }
}

/** The rate limit of every route that takes a sign-up (or hands out a challenge for one). */
export function signUpRateLimit(rateLimitPerMinute: number) {
  return {
    timeWindow: 60_000,
    // Per IPv4 address; per IPv6 /48, so that one site's allocation cannot rotate through
    // its 65,536 /64s (the library's default key). Several households of a carrier may
    // share a /48, hence its larger share.
    keyGenerator: (request: FastifyRequest) => normalizeIP(request.ip, 48),
    max: (_request: FastifyRequest, key: string) =>
      rateLimitPerMinute * (isIPv6(key) ? ipv6SitesShare : 1),
  };
}
