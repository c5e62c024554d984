import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from './env';
import { createMetrics } from './metrics';
import { apiPlugin } from './plugins/api';
import { metricsPlugin } from './plugins/metrics';
import { databasePlugin } from './plugins/database';
import { errorHandlingPlugin, refuseUnparsable, refuseUnroutable } from './plugins/error-handling';
import { loadSheddingPlugin } from './plugins/load-shedding';
import { marketerStatsPlugin } from './plugins/marketer-stats';
import { loadBuild, pagesPlugin, type PageSource } from './plugins/pages';
import { proxyTrustPlugin } from './plugins/proxy-trust';
import { rateLimitPlugin } from './plugins/rate-limit';
import { redisPlugin } from './plugins/redis';
import { createProofOfWork } from './registrations/proof-of-work';
import { securityHeaders, securityHeadersPlugin } from './plugins/security-headers';
import { retentionPlugin } from './plugins/retention';
import { webhooksPlugin } from './plugins/webhooks';

type LoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

export interface BuildOptions extends Pick<
  FastifyServerOptions,
  'connectionTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'serverFactory'
> {
  /** Merged over the defaults (a test passes a stream to read the log); redaction always applies. */
  logger?: LoggerOptions | false;
  /** The clock of the 24-hour duplicate rule and of the visits' days; tests move it. */
  now?: () => Date;
  /**
   * Sheds load (503 with Retry-After) while the event loop lags more than this many ms; main.ts
   * sets it. Off by default: a test process injecting hundreds of requests at once lags too,
   * with no client waiting.
   */
  maxEventLoopDelay?: number;
  /** Where the pages come from; by default the build in `config.distDir` (dev.ts: Vite). */
  pages?: PageSource;
  /** How often the outbox is polled and how many deliveries at once (tests and benchmarks). */
  webhookDelivery?: { pollMs?: number; maxInFlight?: number };
}

// Defence in depth: nothing logs bodies, but if one ever does, these never reach a log line.
const redact = {
  paths: ['req.body', 'body', 'payload', 'input', '*.name', '*.phone', '*.email'],
  censor: '[redacted]',
};

// Fastify takes a hop count at run time but its types do not; this is what it does with one.
function trustHops(count: number) {
  return (_address: string, hop: number) => hop < count;
}

/** The whole server, not listening (main.ts listens; tests inject): one plugin per concern. */
export async function buildApp(config: Config, options: BuildOptions = {}) {
  const {
    logger,
    now = () => new Date(),
    maxEventLoopDelay = 0,
    pages: given,
    webhookDelivery = {},
    ...timeouts
  } = options;
  // Read first: the CSP names the template's inline script, and a missing build stops the
  // start before the database is opened.
  const pages = given ?? (await loadBuild(config.distDir));
  const headers = securityHeaders({
    scriptHashes: pages.scriptHashes,
    inlineStyles: pages.inlineStyles,
    apiOrigin: config.apiOrigin,
  });
  const app = Fastify({
    logger: logger === false ? false : { level: config.logLevel, ...logger, redact },
    trustProxy:
      typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: 16 * 1024,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // While closing, a request on a kept-alive connection is still served (with Connection:
    // close) rather than refused with Fastify's own 503, whose English text the form would show.
    return503OnClosing: false,
    // Per-request log lines cost an eighth of the API's throughput (docs/performance.md);
    // refusals and errors are still logged, and the reverse proxy keeps the access log.
    logController: new LogController({ disableRequestLogging: true }),
    frameworkErrors: refuseUnroutable(headers),
    clientErrorHandler: refuseUnparsable(headers),
    ...timeouts,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Only application/json is a registration; text/plain would otherwise be parsed too.
  app.removeContentTypeParser('text/plain');

  app.decorate('draining', false);
  await app.register(metricsPlugin, {
    metrics: config.metricsPort === undefined ? null : createMetrics(),
  });
  await app.register(proxyTrustPlugin, { trustProxy: config.trustProxy });
  await app.register(redisPlugin, { redisUrl: config.redisUrl });
  await app.register(databasePlugin, {
    database: config.database,
    now,
    webhookEvents: config.webhooks !== undefined,
  });
  if (config.retentionDays !== undefined) {
    await app.register(retentionPlugin, { days: config.retentionDays, now });
  }
  if (config.webhooks !== undefined) {
    await app.register(webhooksPlugin, { config: config.webhooks, now, ...webhookDelivery });
  }
  await app.register(errorHandlingPlugin);
  await app.register(securityHeadersPlugin, {
    headers,
    hstsIncludeSubDomains: config.hstsIncludeSubDomains,
  });
  await app.register(loadSheddingPlugin, { maxEventLoopDelay });
  await app.register(rateLimitPlugin);
  // One for the API and the pages' form posts: a solved challenge is spent for both.
  const signUpOptions = {
    repository: app.registrations,
    proofOfWork:
      config.altchaHmacKey === undefined
        ? undefined
        : createProofOfWork(config.altchaHmacKey, app.redis),
    rateLimitPerMinute: config.rateLimitPerMinute,
    now,
  };
  // GET /api/health, POST /api/external-register, GET /api/altcha-challenge (ALTCHA on)
  await app.register(apiPlugin, {
    prefix: '/api',
    corsOrigins: config.corsOrigins,
    ...signUpOptions,
  });
  // GET /api/marketer/stats, only with MARKETER_AUTH_*: same origin only, so outside the API's CORS
  if (config.marketerAuth !== undefined) {
    await app.register(marketerStatsPlugin, { prefix: '/api', config: config.marketerAuth, now });
  }
  // GET /, GET /register/* (assets and server-rendered pages), POST on the form routes
  await app.register(pagesPlugin, {
    pages,
    siteUrl: config.siteUrl,
    publicUrl: config.publicUrl,
    brand: config.brand,
    marketerStatsStorageKey: config.marketerAuth?.storageKey,
    ...signUpOptions,
  });
  return app;
}
