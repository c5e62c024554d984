import underPressure from '@fastify/under-pressure';
import fp from 'fastify-plugin';
import { ar } from '../../domain/catalogue/shared';
import { retryAfterSeconds } from '../server-limits';

export interface LoadSheddingOptions {
  /** Event-loop lag (ms) past which API requests are answered 503 at once; 0 is off. */
  maxEventLoopDelay: number;
  /** How long the oldest sign-up waiting for its commit has waited (the repository's). */
  commitWaitingMs: () => number;
  /** How long it may wait before new sign-ups are shed (LOAD_SHED_COMMIT_WAIT_MS). */
  maxCommitWaitMs: number;
}

/**
 * Once the event loop lags behind, an API request is answered 503 with Retry-After and the
 * Arabic "try again shortly" instead of joining a queue that only grows until clients time
 * out. Lag measures that queue; utilisation does not (why: docs/reliability.md).
 */
export const loadSheddingPlugin = fp<LoadSheddingOptions>(
  async (app, { maxEventLoopDelay, commitWaitingMs, maxCommitWaitMs }) => {
    await app.register(underPressure, {
      maxEventLoopDelay,
      // The sign-ups waiting for a commit are a queue too, one the event loop does not see
      // while it waits on the database (env.ts, LOAD_SHED_COMMIT_WAIT_MS).
      ...(maxEventLoopDelay > 0 && {
        healthCheck: async () => commitWaitingMs() <= maxCommitWaitMs,
        healthCheckInterval: 100,
      }),
      // Shedding starts and stops within half a second, and the slow first requests of a cold
      // start do not weigh enough in the mean to shed anything.
      sampleInterval: 500,
      // Only the API sheds here: a page or asset refused half-way would leave a visitor a page
      // that never comes to life, and serving them is cheap. A form posted without JavaScript is
      // shed by its route once its body is read, so that the page keeps what was typed
      // (registrations/form-routes.ts). Returning without an answer lets a request through; a
      // sent answer ends it.
      pressureHandler: (request, reply) => {
        if (!request.url.startsWith('/api/')) return;
        void reply
          .code(503)
          .header('retry-after', retryAfterSeconds)
          .send({ error: ar.errorTooManyRequests });
      },
    });
  },
  { name: 'load-shedding', dependencies: ['security-headers'] },
);
