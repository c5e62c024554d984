import fp from 'fastify-plugin';
import type { Metrics, SignUpOutcome } from '../metrics';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set when METRICS_PORT is: the other plugins record into it. */
    metrics: Metrics | null;
  }
  interface FastifyRequest {
    /** What became of a sign-up, where the status alone cannot tell (registrations/sign-up.ts). */
    signUpOutcome?: SignUpOutcome;
  }
}

// The routes that take a sign-up: the JSON API and the HTML form's posts.
const signUpRoutes = new Set(['/api/external-register', '/register/*']);

// A refusal's status says what it was, except what the sign-up marks itself.
function outcomeOf(status: number): SignUpOutcome {
  if (status < 400) return 'created';
  const byStatus: Record<number, SignUpOutcome> = {
    400: 'validation',
    403: 'cross_site',
    413: 'too_large',
    415: 'wrong_type',
    429: 'rate_limited',
    503: 'shed',
  };
  return byStatus[status] ?? 'error';
}

/** Times every answer and counts every sign-up's outcome, when metrics are on. */
export const metricsPlugin = fp<{ metrics: Metrics | null }>(
  async (app, { metrics }) => {
    app.decorate('metrics', metrics);
    // Declared on every request, metrics on or off: a property added to some requests only
    // would give Fastify's request objects two shapes, and V8 slower code for both.
    app.decorateRequest('signUpOutcome', undefined);
    if (metrics === null) return;
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.httpDuration.observe(
        {
          route,
          method: request.method,
          status_class: `${Math.floor(reply.statusCode / 100)}xx`,
        },
        reply.elapsedTime / 1000,
      );
      if (request.method === 'POST' && signUpRoutes.has(route)) {
        metrics.signUps.inc({ outcome: request.signUpOutcome ?? outcomeOf(reply.statusCode) });
      }
    });
  },
  { name: 'metrics' },
);
