import cors from '@fastify/cors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ProofOfWork } from '../registrations/proof-of-work';
import { registrationRoutes } from '../registrations/registration-routes';

export interface ApiOptions {
  corsOrigins: string[];
  proofOfWork: ProofOfWork | undefined;
  rateLimitPerMinute: number;
  now: () => Date;
}

/**
 * The JSON API, registered under /api: GET /api/health, POST /api/external-register and, with
 * ALTCHA on, GET /api/altcha-challenge. Its
 * own scope, so that CORS (and its OPTIONS preflight route) never reaches the pages.
 */
export const apiPlugin: FastifyPluginAsyncZod<ApiOptions> = async (
  api,
  { corsOrigins, proofOfWork, rateLimitPerMinute, now },
) => {
  // An empty list still answers with Vary: Origin and never with an allow-origin header.
  await api.register(cors, { origin: corsOrigins, credentials: true, methods: ['POST'] });
  api.addHook('onSend', async (_request, reply) => {
    // @fastify/cors says "credentials: true" to any origin; only an allowed one may hear it.
    if (!reply.hasHeader('access-control-allow-origin')) {
      reply.removeHeader('access-control-allow-credentials');
    }
    // Answers about personal data are never kept by a browser or a proxy.
    reply.header('cache-control', 'no-store');
  });

  api.get('/health', async (request, reply) => {
    try {
      await api.registrations.ping();
      return await reply.send({ status: 'ok' });
    } catch (error) {
      request.log.error({ err: error }, 'database did not answer');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
  await api.register(registrationRoutes, {
    repository: api.registrations,
    proofOfWork,
    now,
    rateLimitPerMinute,
  });
};
