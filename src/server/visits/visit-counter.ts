import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { normalizeIP } from '@fastify/rate-limit';
import { isPackageKey, packageKeyPattern } from '../../domain/packages';
import { marketingIdPattern } from '../../domain/links';
import type { Utm } from '../../domain/registration';
import type { Visit, VisitRepository } from './visit-repository';
import type { VisitSalts } from './visit-salts';

/**
 * The fetchers that read a shared link to draw its preview (and the big search crawlers): what
 * they fetch is not a visit. The one list; a user agent containing any of these is left out.
 */
export const linkPreviewAgents =
  /WhatsApp|TelegramBot|Twitterbot|Slackbot|Slack-ImgProxy|facebookexternalhit|Facebot|meta-externalagent|LinkedInBot|Discordbot|SkypeUriPreview|Pinterestbot|redditbot|Applebot|Googlebot|bingbot|Embedly|Iframely|vkShare|Mastodon\//i;

/** A served form page: whose link it was, and who asked. */
export interface PageView {
  marketingId?: string;
  packageName?: string;
  /** The page address's campaign parameters, as utmFromQuery gives them. */
  utm?: Utm;
  ip: string;
  userAgent: string | undefined;
}

export interface VisitCounter {
  /**
   * Notes a page view in memory: serving a page never waits on the database. Returns whether
   * it was noted: not a link preview, ids of a sign-up's shape, not the same visitor's
   * view of the same link noted since the last write. The limits per address and link
   * (campaigns.ts) are applied when it is written.
   */
  record(view: PageView): boolean;
  /** Writes what was noted so far (plugins/visits.ts: every second, and on close). Never throws: it logs. */
  flush(): Promise<void>;
}

export interface VisitCounterOptions {
  salts: VisitSalts;
  now: () => Date;
  log: FastifyBaseLogger;
}

const hmacOf = (salt: string, text: string) =>
  createHmac('sha256', salt).update(text).digest('base64url');

/**
 * An address hashed under a day's salt: the visits' address_hash, and a sign-up's (its
 * same_address flag). One IPv6 site (a /48) is one address, as for the sign-ups' rate limit:
 * it cannot rotate through its /64s to escape the limits per address.
 */
export function addressHashOf(ip: string, salt: string): string {
  return hmacOf(salt, `address\n${normalizeIP(ip, 48)}`);
}

// Past this many distinct keys a flush starts at once, so memory stays bounded under a flood.
const maxPending = 10_000;
const chunkSize = 250;
// A longer user agent is no browser's: it is cut.
const maxUserAgentLength = 512;

interface Pending {
  day: string;
  marketingId: string | null;
  packageKey: string | null;
  utmSource: string | null;
  utmCampaign: string | null;
  ip: string;
  userAgent: string;
}

/**
 * Counts visits per day, link and visitor, in batches: at most one a visitor, link and day. A
 * visitor is an HMAC-SHA256 of IP and user agent under the day's random salt (`salts`): the
 * raw values are held in memory until the next flush, at most a second, and never written
 * anywhere. A finished day is rolled up into counts per link, its visitor rows deleted.
 */
export function createVisitCounter(
  repository: VisitRepository,
  { salts, now, log }: VisitCounterOptions,
): VisitCounter {
  let pending = new Map<string, Pending>();
  let flushing: Promise<void> = Promise.resolve();
  let rolledUpBefore = '';

  function hash(visit: Pending, salt: string): Visit {
    const visitorHash = hmacOf(salt, `${visit.ip}\n${visit.userAgent}`);
    const addressHash = addressHashOf(visit.ip, salt);
    const { day, marketingId, packageKey, utmSource, utmCampaign } = visit;
    return { day, marketingId, packageKey, visitorHash, addressHash, utmSource, utmCampaign };
  }

  // A chunk the database refuses is written a visit at a time, so that one bad row never
  // costs the good ones beside it; a database out of reach loses the chunk, and says so.
  async function writeChunk(visits: Visit[]): Promise<void> {
    try {
      await repository.add(visits);
    } catch (error) {
      let lost = 0;
      for (const visit of visits) await repository.add([visit]).catch(() => (lost += 1));
      if (lost > 0) log.warn({ err: error, visits: lost }, 'page visits could not be counted');
    }
  }

  async function write(batch: Pending[]): Promise<void> {
    // In chunks, yielding between them: SQLite writes synchronously, and a second's visits
    // under load must not hold the pages waiting behind one long transaction.
    // One salt lookup a day of the batch, not one a visit: with Redis each is a round trip.
    const saltOfDay = new Map<string, string>();
    for (let start = 0; start < batch.length; start += chunkSize) {
      const visits: Visit[] = [];
      for (const visit of batch.slice(start, start + chunkSize)) {
        let salt = saltOfDay.get(visit.day);
        if (salt === undefined) {
          salt = await salts.salt(visit.day);
          saltOfDay.set(visit.day, salt);
        }
        visits.push(hash(visit, salt));
      }
      await writeChunk(visits);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async function rollUp(): Promise<void> {
    const today = now().toISOString().slice(0, 10);
    if (today === rolledUpBefore) return;
    try {
      await repository.rollUp(today);
      rolledUpBefore = today;
    } catch (error) {
      log.warn({ err: error }, 'the visits of days gone could not be rolled up; trying again');
    }
  }

  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      await rollUp();
      if (pending.size === 0) return;
      const batch = [...pending.values()];
      pending = new Map();
      await write(batch);
    });
    return flushing;
  }

  return {
    record({ marketingId, packageName, utm = {}, ip, userAgent = '' }) {
      if (linkPreviewAgents.test(userAgent)) return false;
      // Only a link that could have brought a sign-up: ids of any other shape fill the table
      // (and once stopped PostgreSQL's whole batch), and no marketer could own them.
      if (marketingId !== undefined && !marketingIdPattern.test(marketingId)) return false;
      if (packageName !== undefined && !packageKeyPattern.test(packageName)) return false;
      const day = now().toISOString().slice(0, 10);
      const agent = userAgent.slice(0, maxUserAgentLength);
      // A key the catalogue does not know counts under no package: anyone can make one up
      // (call_me_now), and it would be a row of the marketer's numbers.
      const packageKey =
        packageName !== undefined && isPackageKey(packageName) ? packageName : null;
      const key = JSON.stringify([day, marketingId, packageKey, ip, agent]);
      if (pending.has(key)) return false;
      pending.set(key, {
        day,
        marketingId: marketingId ?? null,
        packageKey,
        // The first view's campaign, as the database keeps it.
        utmSource: utm.utm_source ?? null,
        utmCampaign: utm.utm_campaign ?? null,
        ip,
        userAgent: agent,
      });
      if (pending.size >= maxPending) void flush();
      return true;
    },
    flush,
  };
}
