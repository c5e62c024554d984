import { isIPv6 } from 'node:net';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { registrationSchema } from '../../domain/registration';
import type { RegistrationRepository } from './registration-repository';

/** How many times the per-address limit one IPv6 /48 may send. */
export const ipv6SitesShare = 4;

export interface RegistrationRoutesOptions {
  repository: RegistrationRepository;
  now: () => Date;
  rateLimitPerMinute: number;
}

/** POST /api/external-register: the pages' one call (docs/product.md §7), validated with the form's own schema. */
export const registrationRoutes: FastifyPluginAsyncZod<RegistrationRoutesOptions> = async (
  app,
  { repository, now, rateLimitPerMinute },
) => {
  app.post(
    '/external-register',
    {
      schema: { body: registrationSchema },
      config: {
        rateLimit: {
          timeWindow: 60_000,
          // Per IPv4 address; per IPv6 /48, so that one site's allocation cannot rotate through
          // its 65,536 /64s (the library's default key). Several households of a carrier may
          // share a /48, hence its larger share.
          keyGenerator: (request) => normalizeIP(request.ip, 48),
          max: (_request, key) => rateLimitPerMinute * (isIPv6(key) ? ipv6SitesShare : 1),
        },
      },
    },
    async (request, reply) => {
      const { id } = await repository.register(request.body, now());
      // A repeat within 24 hours also answers 201 with the first id: a different status would
      // tell anyone who types a stranger's number whether that number signed up today.
      return reply.code(201).send({ id });
    },
  );
};
