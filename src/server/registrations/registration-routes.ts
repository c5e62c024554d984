import { randomUUID } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ar } from '../../domain/catalogue';
import { registrationSchema, trapField } from '../../domain/registration';
import type { ProofOfWork } from './proof-of-work';
import type { RegistrationRepository } from './registration-repository';

/** How many times the per-address limit one IPv6 /48 may send. */
export const ipv6SitesShare = 4;

export interface RegistrationRoutesOptions {
  repository: RegistrationRepository;
  /** Set (ALTCHA_HMAC_KEY): a sign-up must carry a solved challenge of GET /api/altcha-challenge. */
  proofOfWork: ProofOfWork | undefined;
  now: () => Date;
  rateLimitPerMinute: number;
}

/**
 * POST /api/external-register, the pages' one call (docs/product.md §7), validated with the
 * form's own schema; and GET /api/altcha-challenge when ALTCHA is on.
 */
export const registrationRoutes: FastifyPluginAsyncZod<RegistrationRoutesOptions> = async (
  app,
  { repository, proofOfWork, now, rateLimitPerMinute },
) => {
  const rateLimit = {
    timeWindow: 60_000,
    // Per IPv4 address; per IPv6 /48, so that one site's allocation cannot rotate through
    // its 65,536 /64s (the library's default key). Several households of a carrier may
    // share a /48, hence its larger share.
    keyGenerator: (request: FastifyRequest) => normalizeIP(request.ip, 48),
    max: (_request: FastifyRequest, key: string) =>
      rateLimitPerMinute * (isIPv6(key) ? ipv6SitesShare : 1),
  };

  if (proofOfWork !== undefined) {
    app.get('/altcha-challenge', { config: { rateLimit } }, async () => proofOfWork.challenge());
  }

  app.post(
    '/external-register',
    {
      schema: { body: registrationSchema },
      config: { rateLimit },
    },
    async (request, reply) => {
      if (request.body[trapField]) {
        // Answered like a sign-up (a fresh id of the same kind), so the bot learns nothing.
        request.log.info('honeypot filled: sign-up not stored');
        return reply.code(201).send({ id: randomUUID() });
      }
      if (proofOfWork !== undefined && !(await proofOfWork.verify(request.body.altcha))) {
        return reply.code(400).send({ error: ar.errorChallenge });
      }
      const { id } = await repository.register(request.body, now());
      // A repeat within 24 hours is stored too and answers 201 with the first id: a different
      // answer, or a faster one, would tell anyone who types a stranger's number whether that
      // number signed up today.
      return reply.code(201).send({ id });
    },
  );
};
