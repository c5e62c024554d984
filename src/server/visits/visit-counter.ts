import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { packageKeyOf, packageLabel } from '../../domain/packages';
import type { VisitCount, VisitRepository } from './visit-repository';

/**
 * The fetchers that read a shared link to draw its preview (and the big search crawlers): what
 * they fetch is not a visit. The one list; a user agent containing any of these is left out.
 */
export const linkPreviewAgents =
  /WhatsApp|TelegramBot|Twitterbot|Slackbot|Slack-ImgProxy|facebookexternalhit|Facebot|meta-externalagent|LinkedInBot|Discordbot|SkypeUriPreview|Pinterestbot|redditbot|Applebot|Googlebot|bingbot|Embedly|Iframely|vkShare|Mastodon\//i;

/** A served form page: whose link it was, and who asked. */
export interface PageView {
  marketerId?: string;
  packageName?: string;
  ip: string;
  userAgent: string | undefined;
}

export interface VisitCounter {
  /** Notes a page view in memory: serving a page never waits on the database. */
  record(view: PageView): void;
  /** Writes what was noted so far; runs every second, and on close. Never throws: it logs. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface VisitCounterOptions {
  now: () => Date;
  log: FastifyBaseLogger;
  flushIntervalMs?: number;
}

// Past this many distinct keys a flush starts at once, so memory stays bounded under a flood.
const maxPending = 10_000;
const chunkSize = 250;
// Longer values are no visitor's: they are not counted (a route parameter) or cut (a user agent).
const maxIdLength = 200;
const maxUserAgentLength = 512;

interface Pending {
  day: string;
  marketingId: string | null;
  packageKey: string | null;
  ip: string;
  userAgent: string;
  count: number;
}

/**
 * Counts page views per day, link and visitor, in batches. A visitor is an HMAC-SHA256 of IP
 * and user agent under the day's random salt (kept in the database, so every instance hashes
 * alike, and deleted the day after): the raw values are held in memory until the next flush,
 * at most a second, and never written anywhere.
 */
export function createVisitCounter(
  repository: VisitRepository,
  { now, log, flushIntervalMs = 1000 }: VisitCounterOptions,
): VisitCounter {
  let pending = new Map<string, Pending>();
  const salts = new Map<string, string>();
  let flushing: Promise<void> = Promise.resolve();

  async function salt(day: string): Promise<string> {
    let value = salts.get(day);
    if (value === undefined) {
      value = await repository.salt(day);
      // Today's and yesterday's are enough: a batch straddles midnight at most.
      if (salts.size >= 2) salts.clear();
      salts.set(day, value);
    }
    return value;
  }

  async function write(batch: Pending[]): Promise<void> {
    // In chunks, yielding between them: SQLite writes synchronously, and a second's visits
    // under load must not hold the pages waiting behind one long transaction.
    for (let start = 0; start < batch.length; start += chunkSize) {
      const counts: VisitCount[] = [];
      for (const visit of batch.slice(start, start + chunkSize)) {
        const visitorHash = createHmac('sha256', await salt(visit.day))
          .update(`${visit.ip}\n${visit.userAgent}`)
          .digest('base64url');
        counts.push({
          day: visit.day,
          marketingId: visit.marketingId,
          packageKey: visit.packageKey,
          visitorHash,
          count: visit.count,
        });
      }
      await repository.add(counts);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      if (pending.size === 0) return;
      const batch = [...pending.values()];
      pending = new Map();
      try {
        await write(batch);
      } catch (error) {
        // Counting is best effort: a database that does not answer loses this second's visits.
        log.warn({ err: error, visits: batch.length }, 'page visits could not be counted');
      }
    });
    return flushing;
  }

  const timer = setInterval(() => void flush(), flushIntervalMs);
  timer.unref();

  return {
    record({ marketerId, packageName, ip, userAgent = '' }) {
      if (linkPreviewAgents.test(userAgent)) return;
      if ((marketerId?.length ?? 0) > maxIdLength || (packageName?.length ?? 0) > maxIdLength) {
        return;
      }
      const day = now().toISOString().slice(0, 10);
      const agent = userAgent.slice(0, maxUserAgentLength);
      const key = JSON.stringify([day, marketerId, packageName, ip, agent]);
      const visit = pending.get(key);
      if (visit !== undefined) {
        visit.count += 1;
        return;
      }
      pending.set(key, {
        day,
        marketingId: marketerId ?? null,
        // As a registration stores it (through its notes), so that the report can join them.
        packageKey: packageName === undefined ? null : packageKeyOf(packageLabel(packageName)),
        ip,
        userAgent: agent,
        count: 1,
      });
      if (pending.size >= maxPending) void flush();
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
