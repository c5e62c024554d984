import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export type DatabaseConfig = { kind: 'sqlite'; file: string };
export type TrustProxy = boolean | number | string[];

function parseDatabaseUrl(url: string, ctx: z.RefinementCtx): DatabaseConfig {
  if (url === 'sqlite::memory:') return { kind: 'sqlite', file: ':memory:' };
  if (url.startsWith('sqlite:') && url.length > 'sqlite:'.length) {
    return { kind: 'sqlite', file: resolve(url.slice('sqlite:'.length)) };
  }
  ctx.addIssue({
    code: 'custom',
    message: 'expected sqlite:<path> or sqlite::memory: (PostgreSQL is not supported yet)',
  });
  return z.NEVER;
}

// An origin is exactly scheme://host[:port]; anything else (a path, '*', 'null') is refused
// so that CORS can only ever echo an origin that was written here on purpose.
const origin = z
  .string()
  .refine((value) => URL.canParse(value) && new URL(value).origin === value, {
    message: 'each origin must be exactly scheme://host[:port], with no path or trailing slash',
  });

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
});

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  corsOrigins: string[];
  trustProxy: TrustProxy;
  rateLimitPerMinute: number;
  logLevel: (typeof logLevels)[number];
  siteUrl: string | undefined;
  /** Where `npm run build` puts the pages: web/ (client) and ssr/ (the render module). */
  distDir: string;
}

/** Reads the server's settings once; throws one message naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // An empty variable (PORT= in a .env file) means "not set", not zero or "".
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = envSchema.safeParse(present);
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
    database: parsed.DATABASE_URL,
    corsOrigins: parsed.CORS_ORIGINS,
    trustProxy: parsed.TRUST_PROXY,
    rateLimitPerMinute: parsed.RATE_LIMIT_PER_MINUTE,
    logLevel: parsed.LOG_LEVEL,
    siteUrl: parsed.SITE_URL,
    distDir: resolve(repoRoot, 'dist'),
  };
}
