import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import type { Database } from '../db/schema';
import type { Metrics, SignUpOutcome } from '../metrics';
import { outcomeOfStatus } from '../refusals';

declare module 'fastify' {
  interface FastifyRequest {
    /** What became of a sign-up, where the status alone cannot tell (registrations/sign-up.ts). */
    signUpOutcome?: SignUpOutcome;
  }
}

// The routes that take a sign-up: the JSON API and the HTML form's posts.
const signUpRoutes = new Set(['/api/external-register', '/register/*']);

/** Times every answer and counts every sign-up's outcome, when metrics are on. */
export const metricsPlugin = fp<{ metrics: Metrics | null; database: Database }>(
  async (app, { metrics, database }) => {
    // Declared on every request, metrics on or off: a property added to some requests only
    // would give Fastify's request objects two shapes, and V8 slower code for both.
    app.decorateRequest('signUpOutcome', undefined);
    if (metrics === null) return;
    const { poolState } = database;
    if (poolState !== null) {
      new Gauge({
        name: 'tasjeel_database_connections',
        help: 'PostgreSQL pool connections by state (in use, idle, and requests waiting for one).',
        labelNames: ['state'] as const,
        registers: [metrics.registry],
        collect() {
          const { inUse, idle, waiting } = poolState();
          this.set({ state: 'in_use' }, inUse);
          this.set({ state: 'idle' }, idle);
          this.set({ state: 'waiting' }, waiting);
        },
      });
    }
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
        metrics.signUps.inc({
          outcome: request.signUpOutcome ?? outcomeOfStatus(reply.statusCode),
        });
      }
    });
  },
  { name: 'metrics' },
);
