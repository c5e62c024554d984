import { Redis } from 'ioredis';

/**
 * The client of the store the instances share. Its waits are bounded: a Redis that is down or
 * unreachable costs a request at most about a second, then the limit is skipped and the visitor
 * salt kept in memory.
 * Options may also come in the URL's query string, e.g. `?keyPrefix=tasjeel:` to share one
 * Redis between deployments.
 */
export function openRedis(url: string, onError: (error: Error) => void): Redis {
  const redis = new Redis(url, {
    connectTimeout: 1_000,
    commandTimeout: 1_000,
    // The default (20 reconnection attempts) would hold each request for many seconds.
    maxRetriesPerRequest: 1,
  });
  // ioredis reconnects by itself; without a listener its 'error' event would end the process.
  redis.on('error', onError);
  return redis;
}
