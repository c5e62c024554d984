import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';

/**
 * The rate limit, off until a route asks for it (`config.rateLimit`). With Redis, every instance
 * counts against the same keys; without, each counts alone.
 */
export const rateLimitPlugin = fp<{ redis: Redis | undefined }>(
  async (app, { redis }) => {
    await app.register(rateLimit, {
      global: false,
      redis,
      nameSpace: 'tasjeel-rate-limit:',
      // Fail open: when Redis is down, sign-ups go on without a limit rather than fail.
      skipOnError: true,
    });
  },
  { name: 'rate-limit' },
);
