import { BlockList, isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import addressparser from 'nodemailer/lib/addressparser';
import { z } from 'zod';
import { ar } from '../domain/catalogue/shared';
import { readLogo, type LogoFile } from './brand-logo';
import { isTimeZone, parseDailyAt, parseWeeklyAt } from './mail/schedule';
import { defaultFlagSettings } from './registrations/flags';

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

// Standard Webhooks secrets are 24 to 64 random bytes, base64, after `whsec_`. Two, the new one
// first, while the receiver moves from the old one to the new (docs/webhooks.md): each delivery
// is signed with both. The messages never quote a value.
// https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
const webhookSecrets = z
  .string()
  .transform((value) => value.split(',').map((secret) => secret.trim()))
  .refine((secrets) => secrets.length <= 2, {
    message: 'expected one secret, or two separated by a comma (the new one first)',
  })
  .refine(
    (secrets) =>
      secrets.every((secret) => {
        const key = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret)?.[1];
        const bytes = key === undefined ? 0 : Buffer.from(key, 'base64').length;
        return bytes >= 24 && bytes <= 64;
      }),
    { message: 'expected whsec_ followed by 24 to 64 bytes in base64 (each, when two)' },
  );

// A machine's API key (the CRM's for POST /api/leads/:id/status, the platform's for
// /api/people): long enough that guessing is hopeless; two, separated by a comma, while the caller
// moves from the old one to the new (rotation).
const apiKeys = z
  .string()
  .transform((value) => value.split(',').map((key) => key.trim()))
  .pipe(
    z
      .array(z.string().min(32, 'each key must be at least 32 characters'))
      .max(2, 'at most two keys, separated by a comma (the old and the new)'),
  );

const durationUnits = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
// A duration such as 5s or 24h, in ms; NaN when it is none.
function parseDuration(text: string): number {
  const match = /^\s*(\d+)(ms|s|m|h)\s*$/.exec(text);
  return match ? Number(match[1]) * durationUnits[match[2] as keyof typeof durationUnits] : NaN;
}
// A delay, or one repeated (30s*20): a schedule that retries often at first reads short.
function parseDelays(entry: string): number[] {
  const match = /^(.*)\*\s*(\d+)\s*$/.exec(entry);
  const times = match ? Number(match[2]) : 1;
  if (times < 1 || times > 1_000) return [NaN];
  return Array<number>(times).fill(parseDuration(match ? match[1]! : entry));
}
// The webhooks' and the e-mails' retry schedules: the wait after each failed attempt, in ms.
const retryDelays = z.string().transform((value, ctx) => {
  const delays = value.split(',').flatMap(parseDelays);
  if (delays.some(Number.isNaN)) {
    ctx.addIssue({
      code: 'custom',
      message: 'expected delays such as 5s,30s*20,30m,2h (ms, s, m, h; *n repeats one)',
    });
    return z.NEVER;
  }
  return delays;
});

// The relay's URL may hold its password: the message never quotes it.
const smtpUrl = z
  .string()
  .refine(
    (value) =>
      URL.canParse(value) &&
      /^smtps?:$/.test(new URL(value).protocol) &&
      new URL(value).hostname !== '',
    { message: 'expected smtp://[user:password@]host[:port] or smtps://…' },
  );

// One address, with or without a name ("Tasjeel" <no-reply@example.com>): the From of every
// e-mail, and the domain of their Message-IDs.
const mailFrom = z.string().refine(
  (value) => {
    const addresses = addressparser(value, { flatten: true });
    return addresses.length === 1 && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(addresses[0]!.address);
  },
  { message: 'expected one e-mail address, such as "Tasjeel" <no-reply@example.com>' },
);

// Addresses a plain-http URL may name: nothing on the public internet stands between the two.
const privateAddresses = new BlockList();
for (const [network, prefix] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
] as const) {
  privateAddresses.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  privateAddresses.addSubnet(network, prefix, 'ipv6');
}

/**
 * Whether `url` may be plain http: a man in the middle could otherwise mint marketer tokens
 * (the key set) or read every lead (the webhook). Only loopback (localhost included), private
 * addresses and single-label hosts (a container network's `http://n8n:5678`) may.
 */
export function allowsPlainHttp(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const family = isIP(host);
  if (family !== 0) return privateAddresses.check(host, family === 6 ? 'ipv6' : 'ipv4');
  return host === 'localhost' || host.endsWith('.localhost') || !host.includes('.');
}

// https, or http to a host that never crosses the internet (allowsPlainHttp).
const secureUrl = z
  .url({ protocol: /^https?$/ })
  .refine((value) => new URL(value).protocol === 'https:' || allowsPlainHttp(new URL(value)), {
    message:
      'must be https:// (plain http:// only to localhost, a private address or a single-label host)',
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
  // Which version of that policy the form links: the page sends it back with each sign-up.
  PRIVACY_VERSION: z
    .string()
    .trim()
    .min(1, 'must not be blank')
    .max(40, 'must be 40 characters or fewer, such as 2026-11')
    .refine((version) => !/[\p{Cc}]/u.test(version), 'must be one line, without control characters')
    .optional(),
  // Set: submissions older than this many days are deleted, their counts kept as daily totals.
  // At least 1, so no lead is deleted while a repeat may still be linked to it (24 hours).
  RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  // Sign-ups are answered 503 with Retry-After while the event loop lags this many ms behind;
  // 0 turns shedding off. 200 ms: a visitor already waits, and the queue only grows from there.
  LOAD_SHED_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(200),
  // With shedding on, sign-ups are shed too once the oldest waiting for its commit has waited
  // this long: a queue the event loop does not see while it waits on the database. A second,
  // not the lag's 200 ms: a cold connection's first commit takes a few hundred ms, and no one
  // should be turned away for it.
  LOAD_SHED_COMMIT_WAIT_MS: z.coerce.number().int().min(1).max(60_000).default(1_000),
  // The build's API address (src/web/env.ts): on another origin, the CSP must let pages call it.
  VITE_API_BASE_URL: z.string().optional(),
  HSTS_INCLUDE_SUBDOMAINS: z.enum(['true', 'false']).default('false'),
  // Signs ALTCHA's proof-of-work challenges; set, the form must solve one before a sign-up.
  ALTCHA_HMAC_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  // Set: every sign-up is also sent to this URL, signed (docs/webhooks.md).
  WEBHOOK_URL: secureUrl.optional(),
  WEBHOOK_SECRET: webhookSecrets.optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // After a failed attempt, the wait before each next one: the schedule Standard Webhooks
  // suggests, eight attempts over about 28 hours, so an endpoint down for a day loses nothing.
  WEBHOOK_RETRY_DELAYS: retryDelays.prefault('5s,5m,30m,2h,5h,10h,10h'),
  // Set: e-mails are sent through the provider's relay (docs/email.md); unset, none is.
  SMTP_URL: smtpUrl.optional(),
  MAIL_FROM: mailFrom.optional(),
  // After an attempt the relay did not take (down, or a 4xx), the wait before each next one:
  // every 30 s for the first ten minutes, as a relay restarting or greylisting needs, then
  // longer, about a day in all.
  MAIL_RETRY_DELAYS: retryDelays.prefault('15s,30s*20,5m,15m,1h,3h,10h,10h'),
  // When the scheduled e-mails are sent (docs/notifications.md): a weekday and time, and a time
  // of each day, on the clock of this zone.
  SUMMARIES_TIME_ZONE: z
    .string()
    .refine(isTimeZone, { message: 'expected a time zone such as Asia/Riyadh (an IANA name)' })
    .default('Asia/Riyadh'),
  WEEKLY_SUMMARY_AT: z
    .string()
    .transform((value, ctx) => {
      const at = parseWeeklyAt(value);
      if (at !== undefined) return at;
      ctx.addIssue({
        code: 'custom',
        message: 'expected a weekday and a time, such as sunday 08:00',
      });
      return z.NEVER;
    })
    .prefault('sunday 08:00'),
  REVIEW_DIGEST_AT: z
    .string()
    .transform((value, ctx) => {
      const at = parseDailyAt(value);
      if (at !== undefined) return at;
      ctx.addIssue({ code: 'custom', message: 'expected a time of day, such as 08:00' });
      return z.NEVER;
    })
    .prefault('08:00'),
  // Set: Prometheus metrics on HOST:METRICS_PORT/metrics, a listener apart from the public one.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // After SIGTERM, /api/ready answers 503 this long before the listener closes, so that a load
  // balancer polling it stops sending new requests first.
  READY_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  // The marketers' numbers (docs/marketer-kit.md): the provider's platform signs a token; its
  // public keys (JWKS) or a shared HS256 secret verify it here. Neither set: the feature is off.
  MARKETER_AUTH_JWKS_URL: secureUrl.optional(),
  // HS256 needs a key at least as long as its hash (RFC 7518 §3.2).
  MARKETER_AUTH_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  MARKETER_AUTH_ISSUER: z.string().optional(),
  MARKETER_AUTH_AUDIENCE: z.string().optional(),
  // The page reads the token from this localStorage key (or the platform's cookie is sent).
  MARKETER_AUTH_STORAGE_KEY: z.string().max(100).default('token'),
  // A token living longer than this (its exp after its iat, or after now without an iat) is
  // refused: a leaked one cannot serve for ever.
  MARKETER_AUTH_MAX_AGE: z
    .string()
    .transform(parseDuration)
    .refine((age) => age > 0, { message: 'expected a duration such as 24h (ms, s, m, h)' })
    .prefault('24h'),
  MARKETER_AUTH_COOKIE: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected a cookie name')
    .optional(),
  // The claim of a team leader's token that lists their members' marketer ids (an array).
  MARKETER_AUTH_TEAM_CLAIM: z.string().min(1).max(100).default('team'),
  // Requests a minute to the numbers' paths from one address (IPv6: its /48), before any token
  // is verified: an office of marketers may share one address; a script asks far more.
  MARKETER_AUTH_CHECKS_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  // The roles of the platform's tokens that see the whole programme's numbers (docs/program.md).
  PROGRAM_ROLES: z
    .string()
    .default('admin')
    .transform((roles) =>
      roles
        .split(',')
        .map((role) => role.trim())
        .filter((role) => role !== ''),
    ),
  // Set: the provider's CRM tells what became of each lead (POST /api/leads/:id/status).
  LEADS_API_KEY: apiKeys.optional(),
  // Set: the provider's platform puts the programme's people (PUT /api/people).
  PEOPLE_API_KEY: apiKeys.optional(),
  // The flags on doubtful leads (docs/flags.md): never a refusal, only a note for a review.
  CONTESTED_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(36_500)
    .default(defaultFlagSettings.contestedDays),
  BURST_LEADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(defaultFlagSettings.burstLeads),
  BURST_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(defaultFlagSettings.burstMinutes),
  SAME_ADDRESS_LEADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(defaultFlagSettings.sameAddressLeads),
  FAST_SECONDS: z.coerce.number().int().min(1).max(3_600).default(defaultFlagSettings.fastSeconds),
  FORM_STAMP_USES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(defaultFlagSettings.formStampUses),
  // Signs the time a form was served (the fast flag); instances share it to check each other's.
  FORM_STAMP_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  NODE_ENV: z.string().optional(),
  // Where `npm run build` put the pages; tests and benchmarks point it at a fixture build.
  DIST_DIR: z
    .string()
    .default(resolve(repoRoot, 'dist'))
    .transform((dir) => resolve(dir)),
});

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
  return databaseOf(result.data);
}

function databaseOf({
  DATABASE_URL: database,
  DATABASE_POOL_SIZE: poolSize,
}: Pick<z.infer<typeof envSchema>, 'DATABASE_URL' | 'DATABASE_POOL_SIZE'>): DatabaseConfig {
  return database.kind === 'postgres' ? { ...database, poolSize } : database;
}

type Env = z.infer<typeof envSchema>;

function marketerAuthOf(env: Env) {
  const keys =
    env.MARKETER_AUTH_JWKS_URL !== undefined
      ? { kind: 'jwks' as const, url: env.MARKETER_AUTH_JWKS_URL }
      : env.MARKETER_AUTH_SECRET !== undefined
        ? { kind: 'secret' as const, secret: env.MARKETER_AUTH_SECRET }
        : undefined;
  if (keys === undefined) return undefined;
  return {
    keys,
    issuer: env.MARKETER_AUTH_ISSUER,
    audience: env.MARKETER_AUTH_AUDIENCE,
    /** The localStorage key the link page reads the token from. */
    storageKey: env.MARKETER_AUTH_STORAGE_KEY,
    /** Set: the token may come as this cookie instead of an Authorization header. */
    cookie: env.MARKETER_AUTH_COOKIE,
    /** The longest a token may live, in ms (MARKETER_AUTH_MAX_AGE). */
    maxAgeMs: env.MARKETER_AUTH_MAX_AGE,
    /** The claim of a team leader's token that lists their members (an array of marketer ids). */
    teamClaim: env.MARKETER_AUTH_TEAM_CLAIM,
    /** The roles that see the programme's page and numbers (PROGRAM_ROLES). */
    programRoles: env.PROGRAM_ROLES,
    /** Requests a minute from one address before its token is verified. */
    checksPerMinute: env.MARKETER_AUTH_CHECKS_PER_MINUTE,
  };
}

function summariesOf(
  env: Pick<Env, 'SUMMARIES_TIME_ZONE' | 'WEEKLY_SUMMARY_AT' | 'REVIEW_DIGEST_AT'>,
) {
  return {
    timeZone: env.SUMMARIES_TIME_ZONE,
    weeklyAt: env.WEEKLY_SUMMARY_AT,
    reviewAt: env.REVIEW_DIGEST_AT,
  };
}

/**
 * What a command line needs to queue e-mails as the server would (`npm run lead`'s client
 * notes, `npm run tasjeel -- summaries`): undefined when e-mail is off (SMTP_URL, MAIL_FROM or
 * PUBLIC_URL unset), else the links' origin, the brand and the schedule. Only these variables:
 * a setting of the server alone never stops a command.
 */
export function loadMailSettings(env: Record<string, string | undefined>) {
  const result = envSchema
    .pick({
      SMTP_URL: true,
      MAIL_FROM: true,
      PUBLIC_URL: true,
      BRAND_NAME: true,
      BRAND_LOGO: true,
      BRAND_LICENCE: true,
      SUMMARIES_TIME_ZONE: true,
      WEEKLY_SUMMARY_AT: true,
      REVIEW_DIGEST_AT: true,
    })
    .safeParse(presentOnly(env));
  if (!result.success) throw invalid(result.error);
  const settings = result.data;
  if (
    settings.SMTP_URL === undefined ||
    settings.MAIL_FROM === undefined ||
    settings.PUBLIC_URL === undefined
  ) {
    return undefined;
  }
  return {
    publicUrl: settings.PUBLIC_URL,
    brand: {
      name: settings.BRAND_NAME,
      logo: settings.BRAND_LOGO,
      licence: settings.BRAND_LICENCE,
      privacyUrl: undefined,
      privacyVersion: undefined,
    },
    summaries: summariesOf(settings),
  };
}

/**
 * The server's settings: the variables, checked together, then shaped as the code reads them.
 * `Config` is this schema's output, so that a setting is declared once.
 */
const configSchema = envSchema
  // Link previews would otherwise name whatever Host a request claims (docs/security.md).
  .refine((env) => env.NODE_ENV !== 'production' || env.PUBLIC_URL !== undefined, {
    path: ['PUBLIC_URL'],
    message: 'is required when NODE_ENV=production',
  })
  .refine((env) => env.WEBHOOK_URL === undefined || env.WEBHOOK_SECRET !== undefined, {
    path: ['WEBHOOK_SECRET'],
    message: 'is required when WEBHOOK_URL is set',
  })
  .refine((env) => env.SMTP_URL === undefined || env.MAIL_FROM !== undefined, {
    path: ['MAIL_FROM'],
    message: 'is required when SMTP_URL is set',
  })
  // An e-mail's links (confirm, unsubscribe, a page) have no page to be relative to.
  .refine((env) => env.SMTP_URL === undefined || env.PUBLIC_URL !== undefined, {
    path: ['PUBLIC_URL'],
    message: 'is required when SMTP_URL is set: the links in the e-mails need its origin',
  })
  // A version of no notice: the form shows none without PRIVACY_URL.
  .refine((env) => env.PRIVACY_VERSION === undefined || env.PRIVACY_URL !== undefined, {
    path: ['PRIVACY_VERSION'],
    message: 'is set without PRIVACY_URL',
  })
  // One source of keys: with both, which one a token was checked against would be a guess.
  .refine(
    (env) => env.MARKETER_AUTH_JWKS_URL === undefined || env.MARKETER_AUTH_SECRET === undefined,
    { path: ['MARKETER_AUTH_SECRET'], message: 'must not be set with MARKETER_AUTH_JWKS_URL' },
  )
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    database: databaseOf(env),
    /** Shares the rate-limit counters between instances; without it each counts in memory. */
    redisUrl: env.REDIS_URL,
    corsOrigins: env.CORS_ORIGINS,
    trustProxy: env.TRUST_PROXY,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    logLevel: env.LOG_LEVEL,
    siteUrl: env.SITE_URL,
    /** The provider the pages name; the logo is served from memory (plugins/pages.ts). */
    brand: {
      name: env.BRAND_NAME,
      logo: env.BRAND_LOGO,
      licence: env.BRAND_LICENCE,
      privacyUrl: env.PRIVACY_URL,
      /** Recorded with each submission beside privacyUrl (docs/personal-data.md). */
      privacyVersion: env.PRIVACY_VERSION,
    },
    /**
     * The origin link previews name (https://host[:port]); when unset, each page names the
     * origin it was asked for (the protocol and Host, as forwarded when TRUST_PROXY allows).
     */
    publicUrl: env.PUBLIC_URL,
    /** Event-loop lag (ms) past which sign-ups are shed; 0 is off. */
    loadShedDelayMs: env.LOAD_SHED_DELAY_MS,
    /** How long the oldest sign-up may wait for its commit before new ones are shed. */
    loadShedCommitWaitMs: env.LOAD_SHED_COMMIT_WAIT_MS,
    /** Where `npm run build` puts the pages: web/ (client) and ssr/ (the render module). */
    distDir: env.DIST_DIR,
    /** The origin of VITE_API_BASE_URL when it names another site. */
    apiOrigin: apiOriginOf(env.VITE_API_BASE_URL),
    hstsIncludeSubDomains: env.HSTS_INCLUDE_SUBDOMAINS === 'true',
    /** Set: every sign-up carries a solved ALTCHA challenge (registrations/proof-of-work.ts). */
    altchaHmacKey: env.ALTCHA_HMAC_KEY,
    /** Set: GET /metrics on this port (0: any free one). */
    metricsPort: env.METRICS_PORT,
    readyDrainMs: env.READY_DRAIN_MS,
    /** Set: each stored sign-up is queued in the same transaction and delivered to the URL. */
    webhooks:
      env.WEBHOOK_URL === undefined || env.WEBHOOK_SECRET === undefined
        ? undefined
        : {
            url: env.WEBHOOK_URL,
            /** whsec_…, the new one first: each signs every delivery (Standard Webhooks). */
            secrets: env.WEBHOOK_SECRET,
            timeoutMs: env.WEBHOOK_TIMEOUT_MS,
            /** The wait after each failed attempt; after the last one the event is failed. */
            retryDelaysMs: env.WEBHOOK_RETRY_DELAYS,
          },
    /** Set: the e-mails queued in the outbox are sent through the relay (mail/sender.ts). */
    mail:
      env.SMTP_URL === undefined || env.MAIL_FROM === undefined
        ? undefined
        : {
            /** smtp:// (STARTTLS when the relay offers it) or smtps://, with its user and password. */
            url: env.SMTP_URL,
            from: env.MAIL_FROM,
            /** The wait after each attempt not taken; after the last one the e-mail is failed. */
            retryDelaysMs: env.MAIL_RETRY_DELAYS,
          },
    /** When the scheduled e-mails are due (plugins/summaries.ts), with e-mail on. */
    summaries: summariesOf(env),
    /** Set: submissions older than this many days are deleted once a day (plugins/retention.ts). */
    retentionDays: env.RETENTION_DAYS,
    /** Set: marketers see their own numbers (GET /api/marketer/stats and the link page). */
    marketerAuth: marketerAuthOf(env),
    /** Set: POST /api/leads/:id/status takes any of these keys (plugins/leads.ts). */
    leadsApiKeys: env.LEADS_API_KEY,
    /** Set: PUT and GET /api/people take any of these keys (plugins/people.ts). */
    peopleApiKeys: env.PEOPLE_API_KEY,
    /** The thresholds of the flags on doubtful leads (registrations/flags.ts). */
    flags: {
      contestedDays: env.CONTESTED_DAYS,
      burstLeads: env.BURST_LEADS,
      burstMinutes: env.BURST_MINUTES,
      sameAddressLeads: env.SAME_ADDRESS_LEADS,
      fastSeconds: env.FAST_SECONDS,
      formStampUses: env.FORM_STAMP_USES,
    },
    /** Signs the forms' stamps; unset, each instance signs with a random key of its own. */
    formStampKey: env.FORM_STAMP_KEY,
  }));

export type Config = z.output<typeof configSchema>;
export type WebhookConfig = NonNullable<Config['webhooks']>;
export type MailConfig = NonNullable<Config['mail']>;
export type SummariesConfig = Config['summaries'];
export type MailSettings = NonNullable<ReturnType<typeof loadMailSettings>>;
/** How the marketers' tokens are verified (marketer-stats/marketer-auth.ts). */
export type MarketerAuthConfig = NonNullable<Config['marketerAuth']>;

/** Reads the server's settings once; throws one message naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(presentOnly(env));
  if (!result.success) throw invalid(result.error);
  return result.data;
}
