import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ar } from '../domain/catalogue';
import { readLogo, type LogoFile } from './brand-logo';

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

// BRAND_LOGO is read here, once: a missing file or one that is not an image stops the start
// rather than a broken image in every header.
const brandLogo = z.string().transform((path, ctx): LogoFile => {
  try {
    return readLogo(path);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

// Standard Webhooks secrets are 24 to 64 random bytes, base64, after `whsec_`.
// https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
const webhookSecret = z.string().refine(
  (value) => {
    const key = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value)?.[1];
    const bytes = key === undefined ? 0 : Buffer.from(key, 'base64').length;
    return bytes >= 24 && bytes <= 64;
  },
  { message: 'expected whsec_ followed by 24 to 64 bytes in base64' },
);

// The CRM's key for POST /api/leads/:id/status: long enough that guessing is hopeless; two,
// separated by a comma, while the CRM moves from the old one to the new (rotation).
const leadsApiKeys = z
  .string()
  .transform((value) => value.split(',').map((key) => key.trim()))
  .pipe(
    z
      .array(z.string().min(32, 'each key must be at least 32 characters'))
      .max(2, 'at most two keys, separated by a comma (the old and the new)'),
  );

const durationUnits = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
const retryDelays = z.string().transform((value, ctx) => {
  const delays = value.split(',').map((part) => {
    const match = /^\s*(\d+)(ms|s|m|h)\s*$/.exec(part);
    return match ? Number(match[1]) * durationUnits[match[2] as keyof typeof durationUnits] : NaN;
  });
  if (delays.some(Number.isNaN)) {
    ctx.addIssue({ code: 'custom', message: 'expected delays such as 5s,5m,30m,2h (ms, s, m, h)' });
    return z.NEVER;
  }
  return delays;
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
  // The provider on every page (titles, previews, the header): one build serves any provider.
  BRAND_NAME: z
    .string()
    .trim()
    .min(1, 'must not be blank')
    .max(80, 'must be 80 characters or fewer: it is in every title and header')
    .refine((name) => !/[\p{Cc}]/u.test(name), 'must be one line, without control characters')
    .default(ar.brandDefault),
  BRAND_LOGO: brandLogo.optional(),
  // The CMA's licence numbers are digits, in groups joined by a hyphen (such as 08126-37).
  BRAND_LICENCE: z
    .string()
    .trim()
    .regex(/^\d+([-/]\d+)*$/, 'expected the CMA licence number: digits, in groups joined by - or /')
    .optional(),
  PUBLIC_URL: publicUrl.optional(),
  // The provider's privacy policy: set, the form names it under the button (docs/personal-data.md).
  PRIVACY_URL: z.url({ protocol: /^https?$/ }).optional(),
  // Set: submissions older than this many days are deleted, their counts kept as daily totals.
  // At least 1, so no lead is deleted while a repeat may still be linked to it (24 hours).
  RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  // Sign-ups are answered 503 with Retry-After while the event loop lags this many ms behind;
  // 0 turns shedding off. 200 ms: a visitor already waits, and the queue only grows from there.
  LOAD_SHED_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(200),
  // The build's API address (src/web/env.ts): on another origin, the CSP must let pages call it.
  VITE_API_BASE_URL: z.string().optional(),
  HSTS_INCLUDE_SUBDOMAINS: z.enum(['true', 'false']).default('false'),
  // Signs ALTCHA's proof-of-work challenges; set, the form must solve one before a sign-up.
  ALTCHA_HMAC_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  // Set: every sign-up is also sent to this URL, signed (docs/webhooks.md).
  WEBHOOK_URL: z.url({ protocol: /^https?$/ }).optional(),
  WEBHOOK_SECRET: webhookSecret.optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // After a failed attempt, the wait before each next one: the schedule Standard Webhooks
  // suggests, eight attempts over about 28 hours, so an endpoint down for a day loses nothing.
  WEBHOOK_RETRY_DELAYS: retryDelays.prefault('5s,5m,30m,2h,5h,10h,10h'),
  // Set: Prometheus metrics on HOST:METRICS_PORT/metrics, a listener apart from the public one.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // After SIGTERM, /api/ready answers 503 this long before the listener closes, so that a load
  // balancer polling it stops sending new requests first.
  READY_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  // The marketers' numbers (docs/marketer-kit.md): the provider's platform signs a token; its
  // public keys (JWKS) or a shared HS256 secret verify it here. Neither set: the feature is off.
  MARKETER_AUTH_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
  // HS256 needs a key at least as long as its hash (RFC 7518 §3.2).
  MARKETER_AUTH_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  MARKETER_AUTH_ISSUER: z.string().optional(),
  MARKETER_AUTH_AUDIENCE: z.string().optional(),
  // The page reads the token from this localStorage key (or the platform's cookie is sent).
  MARKETER_AUTH_STORAGE_KEY: z.string().max(100).default('token'),
  MARKETER_AUTH_COOKIE: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected a cookie name')
    .optional(),
  // The claim of a team leader's token that lists their members' marketer ids (an array).
  MARKETER_AUTH_TEAM_CLAIM: z.string().min(1).max(100).default('team'),
  // Set: the provider's CRM tells what became of each lead (POST /api/leads/:id/status).
  LEADS_API_KEY: leadsApiKeys.optional(),
  NODE_ENV: z.string().optional(),
  // Where `npm run build` put the pages; tests and benchmarks point it at a fixture build.
  DIST_DIR: z
    .string()
    .default(resolve(repoRoot, 'dist'))
    .transform((dir) => resolve(dir)),
});

export interface WebhookConfig {
  url: string;
  /** whsec_…: signs every delivery (Standard Webhooks). */
  secret: string;
  timeoutMs: number;
  /** The wait after each failed attempt; after the last one the event is failed. */
  retryDelaysMs: number[];
}

/** How the marketers' tokens are verified (marketer-stats/marketer-auth.ts). */
export interface MarketerAuthConfig {
  keys: { kind: 'jwks'; url: string } | { kind: 'secret'; secret: string };
  issuer: string | undefined;
  audience: string | undefined;
  /** The localStorage key the link page reads the token from. */
  storageKey: string;
  /** Set: the token may come as this cookie instead of an Authorization header. */
  cookie: string | undefined;
  /** The claim of a team leader's token that lists their members (an array of marketer ids). */
  teamClaim: string;
}

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
  /** The provider the pages name; the logo is served from memory (plugins/pages.ts). */
  brand: {
    name: string;
    logo: LogoFile | undefined;
    licence: string | undefined;
    privacyUrl: string | undefined;
  };
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
  /** Set: each stored sign-up is queued in the same transaction and delivered to the URL. */
  webhooks: WebhookConfig | undefined;
  /** Set: GET /metrics on this port (0: any free one). */
  metricsPort: number | undefined;
  readyDrainMs: number;
  /** Set: marketers see their own numbers (GET /api/marketer/stats and the link page). */
  marketerAuth: MarketerAuthConfig | undefined;
  /** Set: submissions older than this many days are deleted once a day (plugins/retention.ts). */
  retentionDays: number | undefined;
  /** Set: POST /api/leads/:id/status takes any of these keys (plugins/leads.ts). */
  leadsApiKeys: string[] | undefined;
}

// An absolute http(s) URL names another origin; a path or nothing is this site.
function apiOriginOf(apiBaseUrl: string | undefined): string | undefined {
  return apiBaseUrl !== undefined && /^https?:\/\//.test(apiBaseUrl) && URL.canParse(apiBaseUrl)
    ? new URL(apiBaseUrl).origin
    : undefined;
}

/** An empty variable (PORT= in a .env file) means "not set", not zero or "". */
function presentOnly(env: Record<string, string | undefined>) {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
}

/** Throws one message naming every bad variable. */
function invalid(error: z.ZodError): Error {
  const problems = error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  return new Error(`Invalid environment:\n${problems.join('\n')}`);
}

/**
 * Only DATABASE_URL and DATABASE_POOL_SIZE: what the command-line tools need, so that a
 * setting of the server alone (a logo file that is not there) never stops `npm run export`.
 */
export function loadDatabaseConfig(env: Record<string, string | undefined>): DatabaseConfig {
  const result = envSchema
    .pick({ DATABASE_URL: true, DATABASE_POOL_SIZE: true })
    .safeParse(presentOnly(env));
  if (!result.success) throw invalid(result.error);
  const { DATABASE_URL: database, DATABASE_POOL_SIZE: poolSize } = result.data;
  return database.kind === 'postgres' ? { ...database, poolSize } : database;
}

/**
 * Whether WEBHOOK_URL is set: `npm run lead` then queues each change's event for the server to
 * deliver, as the server does. Nothing else of the server's settings is read.
 */
export function loadWebhooksOn(env: Record<string, string | undefined>): boolean {
  const result = envSchema.pick({ WEBHOOK_URL: true }).safeParse(presentOnly(env));
  if (!result.success) throw invalid(result.error);
  return result.data.WEBHOOK_URL !== undefined;
}

/** Reads the server's settings once; throws one message naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = envSchema
    // Link previews would otherwise name whatever Host a request claims (docs/security.md).
    .refine((env) => env.NODE_ENV !== 'production' || env.PUBLIC_URL !== undefined, {
      path: ['PUBLIC_URL'],
      message: 'is required when NODE_ENV=production',
    })
    .refine((env) => env.WEBHOOK_URL === undefined || env.WEBHOOK_SECRET !== undefined, {
      path: ['WEBHOOK_SECRET'],
      message: 'is required when WEBHOOK_URL is set',
    })
    // One source of keys: with both, which one a token was checked against would be a guess.
    .refine(
      (env) => env.MARKETER_AUTH_JWKS_URL === undefined || env.MARKETER_AUTH_SECRET === undefined,
      { path: ['MARKETER_AUTH_SECRET'], message: 'must not be set with MARKETER_AUTH_JWKS_URL' },
    )
    .safeParse(presentOnly(env));
  if (!result.success) throw invalid(result.error);
  const parsed = result.data;
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    database: loadDatabaseConfig(env),
    redisUrl: parsed.REDIS_URL,
    corsOrigins: parsed.CORS_ORIGINS,
    trustProxy: parsed.TRUST_PROXY,
    rateLimitPerMinute: parsed.RATE_LIMIT_PER_MINUTE,
    logLevel: parsed.LOG_LEVEL,
    siteUrl: parsed.SITE_URL,
    brand: {
      name: parsed.BRAND_NAME,
      logo: parsed.BRAND_LOGO,
      licence: parsed.BRAND_LICENCE,
      privacyUrl: parsed.PRIVACY_URL,
    },
    publicUrl: parsed.PUBLIC_URL,
    loadShedDelayMs: parsed.LOAD_SHED_DELAY_MS,
    distDir: parsed.DIST_DIR,
    apiOrigin: apiOriginOf(parsed.VITE_API_BASE_URL),
    hstsIncludeSubDomains: parsed.HSTS_INCLUDE_SUBDOMAINS === 'true',
    altchaHmacKey: parsed.ALTCHA_HMAC_KEY,
    metricsPort: parsed.METRICS_PORT,
    readyDrainMs: parsed.READY_DRAIN_MS,
    webhooks:
      parsed.WEBHOOK_URL === undefined || parsed.WEBHOOK_SECRET === undefined
        ? undefined
        : {
            url: parsed.WEBHOOK_URL,
            secret: parsed.WEBHOOK_SECRET,
            timeoutMs: parsed.WEBHOOK_TIMEOUT_MS,
            retryDelaysMs: parsed.WEBHOOK_RETRY_DELAYS,
          },
    retentionDays: parsed.RETENTION_DAYS,
    marketerAuth: marketerAuthOf(parsed),
    leadsApiKeys: parsed.LEADS_API_KEY,
  };
}

function marketerAuthOf(parsed: z.infer<typeof envSchema>): MarketerAuthConfig | undefined {
  const keys =
    parsed.MARKETER_AUTH_JWKS_URL !== undefined
      ? { kind: 'jwks' as const, url: parsed.MARKETER_AUTH_JWKS_URL }
      : parsed.MARKETER_AUTH_SECRET !== undefined
        ? { kind: 'secret' as const, secret: parsed.MARKETER_AUTH_SECRET }
        : undefined;
  if (keys === undefined) return undefined;
  return {
    keys,
    issuer: parsed.MARKETER_AUTH_ISSUER,
    audience: parsed.MARKETER_AUTH_AUDIENCE,
    storageKey: parsed.MARKETER_AUTH_STORAGE_KEY,
    cookie: parsed.MARKETER_AUTH_COOKIE,
    teamClaim: parsed.MARKETER_AUTH_TEAM_CLAIM,
  };
}
