import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The hash of the API key the request carried, once it matched one of its scope's. */
    apiKey?: string;
  }
}

export interface ApiKeyOptions {
  /** What the API is, for the log and the rate limit's keys: `leads`, `people`. */
  name: string;
  /** One key, or two while the caller moves to a new one. */
  keys: string[];
  /** Its paths under the scope's prefix: a preflight to them is answered 404 (no CORS). */
  paths: string[];
  /** Requests a minute a key. */
  perMinute: number;
  /** Requests a minute from one address whose key is missing or wrong. */
  refusedPerMinute: number;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * A machine's API behind `Authorization: Bearer <key>` (the CRM's, the platform's), in the scope
 * of the plugin that calls it: a request without a valid key is refused 401 before its body is
 * read, every answer is `Cache-Control: no-store`, and the API's CORS never answers a preflight
 * (it is for servers only). Returns the routes' rate limit: a key's requests per key, refused
 * ones per address.
 */
export function requireApiKey(
  app: FastifyInstance,
  { name, keys, paths, perMinute, refusedPerMinute }: ApiKeyOptions,
) {
  const digests = keys.map(digest);

  // Every key compared, each in constant time, so that neither the time nor which key matched
  // tells a guesser anything.
  function keyOf(request: FastifyRequest): string | undefined {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (bearer === undefined) return undefined;
    const given = digest(bearer);
    const matches = digests.map((key) => timingSafeEqual(key, given));
    return matches.includes(true) ? given.toString('hex').slice(0, 32) : undefined;
  }

  // The verdict first (onRequest), so that the rate limit, a hook of the route that runs after
  // it, counts a key's requests per key and refused requests per address.
  app.addHook('onRequest', async (request) => {
    request.apiKey = keyOf(request);
  });
  app.addHook('preParsing', async (request, reply) => {
    if (request.apiKey !== undefined) return;
    request.log.info(`${name} API: a request without a valid key refused`);
    return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized' });
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  for (const path of paths) {
    app.options(path, (_request, reply) => reply.code(404).send({ error: 'not found' }));
  }

  return {
    hook: 'onRequest' as const,
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) =>
      request.apiKey === undefined ? `${name}-refused:${request.ip}` : `${name}:${request.apiKey}`,
    max: (request: FastifyRequest) => (request.apiKey === undefined ? refusedPerMinute : perMinute),
  };
}
