import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** The day's secret under which visitors are hashed. */
export interface VisitSalts {
  salt(day: string): Promise<string>;
}

const twoDaysSeconds = 2 * 24 * 60 * 60;

/**
 * Salts live in memory, or in Redis with an expiry when instances share one (so that they hash
 * alike), never in the database or its backups: once a salt is gone, no hash of its day can be
 * recomputed from an IP and a user agent. An instance that restarts without Redis starts a new
 * salt, and counts that day's earlier visitors again.
 */
export function createVisitSalts(
  redis: Redis | undefined,
  onRedisError: (error: unknown) => void,
): VisitSalts {
  const inMemory = new Map<string, string>();
  function local(day: string): string {
    let value = inMemory.get(day);
    if (value === undefined) {
      // Today's and yesterday's are enough: a batch straddles midnight at most.
      if (inMemory.size >= 2) inMemory.delete([...inMemory.keys()].sort()[0] ?? '');
      value = randomBytes(32).toString('base64url');
      inMemory.set(day, value);
    }
    return value;
  }
  return {
    async salt(day) {
      if (redis === undefined) return local(day);
      const key = `tasjeel-visit-salt:${day}`;
      try {
        await redis.set(key, randomBytes(32).toString('base64url'), 'EX', twoDaysSeconds, 'NX');
        const shared = await redis.get(key);
        if (shared !== null) return shared;
      } catch (error) {
        onRedisError(error);
      }
      // Counting is best effort: with Redis out of reach, this instance hashes on its own.
      return local(day);
    },
  };
}
