import cors from '@fastify/cors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { registrationRoutes } from '../registrations/registration-routes';
import type { SignUpOptions } from '../registrations/sign-up';

export interface ApiOptions extends SignUpOptions {
  corsOrigins: string[];
  /** Set at SIGTERM: /api/ready answers 503 until the server closes. */
  lifecycle: { draining: boolean };
}

/**
 * The JSON API, registered under /api: GET /api/health, GET /api/ready, POST /api/external-register and, with
 * ALTCHA on, GET /api/altcha-challenge. Its
 * own scope, so that CORS (and its OPTIONS preflight route) never reaches the pages.
 */
export const apiPlugin: FastifyPluginAsyncZod<ApiOptions> = async (
  api,
  { corsOrigins, lifecycle, repository, proofOfWork, now, rateLimitPerMinute, evidence },
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

  // Readiness, for a load balancer: not while draining at shutdown (serve.ts), nor while the
  // database does not answer.
  api.get('/ready', async (request, reply) => {
    if (lifecycle.draining) return reply.code(503).send({ status: 'draining' });
    try {
      await repository.ping();
      return await reply.send({ status: 'ready' });
    } catch (error) {
      request.log.warn({ err: error }, 'not ready: the database did not answer');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  // Liveness: the process answers. Never the database: an orchestrator restarts an instance
  // that fails it, and a database outage would restart every instance at once, to no avail.
  api.get('/health', async () => ({ status: 'ok' }));
  await api.register(registrationRoutes, {
    repository,
    proofOfWork,
    now,
    rateLimitPerMinute,
    evidence,
  });
};
