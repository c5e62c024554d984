import type { Redis } from 'ioredis';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** The store that instances share: rate-limit counters and the visitor salt. */
    redis: Redis | undefined;
  }
}

export const redisPlugin = fp<{ redisUrl: string | undefined }>(
  async (app, { redisUrl }) => {
    // ioredis is loaded only where Redis is configured: a single instance never needs it.
    const redis =
      redisUrl === undefined
        ? undefined
        : (await import('../redis')).openRedis(redisUrl, (error) =>
            app.log.warn(
              { err: error },
              'Redis does not answer: the rate limit is skipped, the visitor salt kept in memory',
            ),
          );
    app.decorate('redis', redis);
    app.addHook('onClose', async () => redis?.disconnect());
  },
  { name: 'redis' },
);
