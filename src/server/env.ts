import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export type DatabaseConfig =
  { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; poolSize: number };
export type TrustProxy = boolean | number | string[];

type DatabaseUrl = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

// The messages never quote the value: a PostgreSQL URL may hold a password.
function parseDatabaseUrl(url: string, ctx: z.RefinementCtx): DatabaseUrl {
  if (url === 'sqlite::memory:') return { kind: 'sqlite', file: ':memory:' };
  if (url.startsWith('sqlite:') && url.length > 'sqlite:'.length) {
    return { kind: 'sqlite', file: resolve(url.slice('sqlite:'.length)) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    if (URL.canParse(url)) return { kind: 'postgres', url };
    ctx.addIssue({
      code: 'custom',
      message: 'is not a valid postgres://user:password@host:port/database URL',
    });
    return z.NEVER;
  }
  ctx.addIssue({
    code: 'custom',
    message:
      'expected sqlite:<path>, sqlite::memory: or postgres://user:password@host:port/database',
  });
  return z.NEVER;
}

const redisUrl = z.string().refine((value) => /^rediss?:\/\//.test(value) && URL.canParse(value), {
  message: 'expected redis://[user:password@]host[:port][/db] (or rediss:// for TLS)',
});

// An origin is exactly scheme://host[:port]; anything else (a path, '*', 'null') is refused
// so that CORS can only ever echo an origin that was written here on purpose.
const origin = z
  .string()
  .refine((value) => URL.canParse(value) && new URL(value).origin === value, {
    message: 'each origin must be exactly scheme://host[:port], with no path or trailing slash',
  });

// This server's public address, for the absolute URLs of link previews (og:url, og:image). An
// origin with any path is refused: the pages live under /register/ whatever the host.
const publicUrl = z
  .string()
  .refine(
    (value) =>
      URL.canParse(value) &&
      /^https?:$/.test(new URL(value).protocol) &&
      value.replace(/\/$/, '') === new URL(value).origin,
    { message: 'expected the origin of the site, such as https://example.com (no path)' },
  )
  .transform((value) => new URL(value).origin);

const trustProxy = z.string().transform((value, ctx): TrustProxy => {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const addresses = value.split(',').map((address) => address.trim());
  if (addresses.every((address) => isIP(address.split('/')[0] ?? '') !== 0)) return addresses;
  ctx.addIssue({
    code: 'custom',
    message: 'expected true, false, a hop count, or comma-separated IP addresses or CIDR ranges',
  });
  return z.NEVER;
});

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().default('sqlite:./data/registrations.db').transform(parseDatabaseUrl),
  // Connections per instance (PostgreSQL only): the instances together must stay under the
  // server's max_connections (100 by default), less what the export and admin tools need.
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  // When set, the rate-limit counters live in Redis, so that every instance counts together.
  REDIS_URL: redisUrl.optional(),
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    )
    .pipe(z.array(origin)),
  // Off by default: without a proxy in front, X-Forwarded-For is whatever the client says.
  TRUST_PROXY: trustProxy.default(false),
  // Per client IP and per minute, on the registration route only. A mobile carrier puts
  // thousands of phones behind one CGNAT address; even a campaign link shared in a busy group
  // gives that address a few sign-ups a minute, while a script flooding the form sends
  // hundreds. 120 (two a second, sustained) leaves real people far below the limit.
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  SITE_URL: z.url({ protocol: /^https?$/ }).optional(),
  PUBLIC_URL: publicUrl.optional(),
  // Sign-ups are answered 503 with Retry-After while the event loop lags this many ms behind;
  // 0 turns shedding off. 200 ms: a visitor already waits, and the queue only grows from there.
  LOAD_SHED_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(200),
  // The build's API address (src/web/env.ts): on another origin, the CSP must let pages call it.
  VITE_API_BASE_URL: z.string().optional(),
  HSTS_INCLUDE_SUBDOMAINS: z.enum(['true', 'false']).default('false'),
  // Signs ALTCHA's proof-of-work challenges; set, the form must solve one before a sign-up.
  ALTCHA_HMAC_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  NODE_ENV: z.string().optional(),
  // Where `npm run build` put the pages; tests and benchmarks point it at a fixture build.
  DIST_DIR: z
    .string()
    .default(resolve(repoRoot, 'dist'))
    .transform((dir) => resolve(dir)),
});

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  /** Shares the rate-limit counters between instances; without it each counts in memory. */
  redisUrl: string | undefined;
  corsOrigins: string[];
  trustProxy: TrustProxy;
  rateLimitPerMinute: number;
  logLevel: (typeof logLevels)[number];
  siteUrl: string | undefined;
  /**
   * The origin link previews name (https://host[:port]); when unset, each page names the origin
   * it was asked for (the protocol and Host, as forwarded when TRUST_PROXY allows).
   */
  publicUrl: string | undefined;
  /** Event-loop lag (ms) past which sign-ups are shed; 0 is off. */
  loadShedDelayMs: number;
  /** Where `npm run build` puts the pages: web/ (client) and ssr/ (the render module). */
  distDir: string;
  /** The origin of VITE_API_BASE_URL when it names another site. */
  apiOrigin: string | undefined;
  hstsIncludeSubDomains: boolean;
  /** Set: every sign-up carries a solved ALTCHA challenge (registrations/proof-of-work.ts). */
  altchaHmacKey: string | undefined;
}

// An absolute http(s) URL names another origin; a path or nothing is this site.
function apiOriginOf(apiBaseUrl: string | undefined): string | undefined {
  return apiBaseUrl !== undefined && /^https?:\/\//.test(apiBaseUrl) && URL.canParse(apiBaseUrl)
    ? new URL(apiBaseUrl).origin
    : undefined;
}

/** Reads the server's settings once; throws one message naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // An empty variable (PORT= in a .env file) means "not set", not zero or "".
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = envSchema
    // Link previews would otherwise name whatever Host a request claims (docs/security.md).
    .refine((env) => env.NODE_ENV !== 'production' || env.PUBLIC_URL !== undefined, {
      path: ['PUBLIC_URL'],
      message: 'is required when NODE_ENV=production',
    })
    .safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `  ${issue.path.join('.')}: ${issue.message}`,
    );
    throw new Error(`Invalid environment:\n${problems.join('\n')}`);
  }
  const parsed = result.data;
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    database:
      parsed.DATABASE_URL.kind === 'postgres'
        ? { ...parsed.DATABASE_URL, poolSize: parsed.DATABASE_POOL_SIZE }
        : parsed.DATABASE_URL,
    redisUrl: parsed.REDIS_URL,
    corsOrigins: parsed.CORS_ORIGINS,
    trustProxy: parsed.TRUST_PROXY,
    rateLimitPerMinute: parsed.RATE_LIMIT_PER_MINUTE,
    logLevel: parsed.LOG_LEVEL,
    siteUrl: parsed.SITE_URL,
    publicUrl: parsed.PUBLIC_URL,
    loadShedDelayMs: parsed.LOAD_SHED_DELAY_MS,
    distDir: parsed.DIST_DIR,
    apiOrigin: apiOriginOf(parsed.VITE_API_BASE_URL),
    hstsIncludeSubDomains: parsed.HSTS_INCLUDE_SUBDOMAINS === 'true',
    altchaHmacKey: parsed.ALTCHA_HMAC_KEY,
  };
}
