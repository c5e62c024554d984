import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ar } from '../../domain/catalogue/shared';
import type { MarketerAuthConfig } from '../env';
import { tokenOf, type TokenCheck, type TokenVerifier } from '../marketer-stats/marketer-auth';

type User = Extract<TokenCheck, { kind: 'user' }>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The platform's user the request's token names, once verified. */
    user?: User;
  }
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/** A hook that answers 429 in Arabic, with Retry-After, once the limiter's count is past. */
export function refusedPast(limiter: Limiter) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const limit = await limiter(request);
    if (!limit.isAllowed && limit.isExceeded) {
      return reply
        .code(429)
        .header('retry-after', String(limit.ttlInSeconds))
        .send({ error: ar.errorTooManyRequests });
    }
  };
}

export interface PlatformSignInOptions {
  config: MarketerAuthConfig;
  verify: TokenVerifier;
  /** Names the per-address limit's count: each family of routes counts apart. */
  name: string;
  /** The Arabic answer of a 401 (no valid token) and of a 503 (the platform's keys out of reach). */
  signIn: string;
  unavailable: string;
}

/**
 * Every route of `app` (an encapsulated plugin) for the platform's signed-in users: a
 * person's answer kept by no cache, a limit per address before any token is verified, then
 * the token verified and its user set on the request (each route says which roles it serves).
 */
export function requirePlatformUser(
  app: FastifyInstance,
  { config, verify, name, signIn, unavailable }: PlatformSignInOptions,
): void {
  app.addHook('onSend', async (_request, reply) => {
    // One person's answer: never kept by a shared cache, nor by the browser.
    reply.header('cache-control', 'private, no-store');
    // The answer depends on who asks.
    reply.header('vary', 'authorization, cookie');
  });

  // Before any token is verified, a limit per address (IPv6: per /48), so that no stream of
  // made-up tokens costs more than that in verifications. Its own limiter: a route's limit
  // (one limiter a request, for the library) still counts per user afterwards.
  const perAddress = app.createRateLimit({
    timeWindow: 60_000,
    max: config.checksPerMinute,
    keyGenerator: (request: FastifyRequest) => `${name}-ip:${normalizeIP(request.ip, 48)}`,
  });
  app.addHook('onRequest', refusedPast(perAddress));

  // Verified before a route's rate limit (a preHandler), which then counts per user.
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const token = tokenOf(request.headers, config.cookie);
    const check = token === undefined ? { kind: 'refused' as const } : await verify(token);
    if (check.kind === 'refused') {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ error: signIn });
    }
    // The failed fetch was logged once (createTokenVerifier's caller); the requests it fails
    // are not, one by one.
    if (check.kind === 'unavailable') return reply.code(503).send({ error: unavailable });
    request.user = check;
  });
}
