import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from './env';
import { apiPlugin } from './plugins/api';
import { metricsPlugin } from './plugins/metrics';
import {
  errorHandlingPlugin,
  refuseHostless,
  refuseUnparsable,
  refuseUnroutable,
} from './plugins/error-handling';
import { createCountKeeper } from './count-rollups';
import { createTokenVerifier } from './marketer-stats/marketer-auth';
import { countKeepingPlugin } from './plugins/count-keeping';
import { leadsPlugin } from './plugins/leads';
import { mailPlugin } from './plugins/mail';
import { summariesPlugin } from './plugins/summaries';
import { notificationsOffPlugin, notificationsPlugin } from './plugins/notifications';
import { loadSheddingPlugin } from './plugins/load-shedding';
import { peoplePlugin } from './plugins/people';
import { statsPlugin } from './plugins/stats';
import { loadBuild, pagesPlugin, type PageSource } from './plugins/pages';
import { proxyTrustPlugin } from './plugins/proxy-trust';
import { rateLimitPlugin } from './plugins/rate-limit';
import { securityHeaders, securityHeadersPlugin } from './plugins/security-headers';
import { retentionPlugin } from './plugins/retention';
import { eraseExpiredMail } from './mail/mail-personal-data';
import { deleteSubmissions } from './registrations/personal-data';
import { visitsPlugin } from './plugins/visits';
import { webhooksPlugin } from './plugins/webhooks';
import { createServices } from './services';

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
  /** How often the e-mails' outbox is polled (tests). */
  mailSending?: { pollMs?: number };
  /** How often the schedule of the summaries is looked at (tests). */
  summariesIntervalMs?: number;
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

/**
 * The whole server, not listening (main.ts listens; tests inject): the services, then one plugin
 * per concern, each handed the services it uses.
 */
export async function buildApp(config: Config, options: BuildOptions = {}) {
  const {
    logger,
    now = () => new Date(),
    maxEventLoopDelay = 0,
    pages: given,
    webhookDelivery = {},
    mailSending = {},
    summariesIntervalMs,
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
    // Node's own answer to HTTP/1.1 without Host is a bare 400 without the security headers:
    // refuseHostless answers it instead.
    http: { requireHostHeader: false },
    ...timeouts,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Only application/json is a registration; text/plain would otherwise be parsed too.
  app.removeContentTypeParser('text/plain');

  const services = await createServices(config, app.log, now);
  // Registered first, so that it runs last: every plugin has stopped its work (onClose hooks
  // run in the reverse order of their plugins) before the database closes.
  app.addHook('onClose', () => services.close());
  const { metrics, database, redis } = services;
  await app.register(metricsPlugin, { metrics, database });
  await app.register(proxyTrustPlugin, { trustProxy: config.trustProxy });
  await app.register(visitsPlugin, { visits: services.visits });
  if (config.retentionDays !== undefined) {
    await app.register(retentionPlugin, {
      days: config.retentionDays,
      now,
      deleteSubmissions: (selection) => deleteSubmissions(database, selection),
      erasePeople: (inactiveBefore) => services.people.eraseInactive(inactiveBefore),
      eraseMail: (before) => eraseExpiredMail(database, before),
    });
  }
  await app.register(webhooksPlugin, {
    config: config.webhooks,
    now,
    outbox: services.outbox,
    metrics,
    ...webhookDelivery,
  });
  await app.register(mailPlugin, {
    config: config.mail,
    now,
    outbox: services.mailOutbox,
    metrics,
    ...mailSending,
  });
  // The weekly summaries and the review digest, when due (docs/notifications.md).
  if (config.mail !== undefined && services.mailLinks !== undefined) {
    await app.register(summariesPlugin, {
      config: config.summaries,
      now,
      database,
      links: services.mailLinks,
      leadReviews: services.leadReviews,
      intervalMs: summariesIntervalMs,
    });
  }
  await app.register(errorHandlingPlugin, { isDatabaseUnavailable: database.isUnavailable });
  await app.register(securityHeadersPlugin, {
    headers,
    hstsIncludeSubDomains: config.hstsIncludeSubDomains,
  });
  app.addHook('onRequest', refuseHostless);
  await app.register(loadSheddingPlugin, {
    maxEventLoopDelay,
    commitWaitingMs: services.registrations.waitingMs,
    maxCommitWaitMs: config.loadShedCommitWaitMs,
  });
  await app.register(rateLimitPlugin, { redis });
  const signUpOptions = {
    repository: services.registrations,
    proofOfWork: services.proofOfWork,
    rateLimitPerMinute: config.rateLimitPerMinute,
    now,
    evidence: services.evidence,
  };
  // GET /api/health, GET /api/ready, POST /api/external-register, GET /api/altcha-challenge (ALTCHA on)
  await app.register(apiPlugin, {
    prefix: '/api',
    corsOrigins: config.corsOrigins,
    lifecycle: services.lifecycle,
    ...signUpOptions,
  });
  // GET /api/marketer/stats, /api/program/stats and /api/program/review, POST
  // /api/program/leads/:id/review, only with MARKETER_AUTH_*: same origin
  // only, so outside the API's CORS
  // One verifier for every route of the platform's users: the platform's keys fetched once.
  const verify =
    config.marketerAuth &&
    createTokenVerifier(config.marketerAuth, (error) =>
      app.log.error({ err: error }, "the platform's keys (JWKS) could not be fetched"),
    );
  if (config.marketerAuth !== undefined && verify !== undefined) {
    const keeper = createCountKeeper(database, {
      now,
      onError: (error) =>
        app.log.warn({ err: error }, "the programme's finished days could not be kept"),
    });
    await app.register(countKeepingPlugin, { keeper });
    await app.register(statsPlugin, {
      keeper,
      prefix: '/api',
      config: config.marketerAuth,
      verify,
      now,
      database,
      leadReviews: services.leadReviews,
      people: services.people,
    });
  }
  // PUT and GET /api/notifications, only with SMTP_URL and MARKETER_AUTH_*: same origin only
  if (
    config.marketerAuth !== undefined &&
    verify !== undefined &&
    services.notifications !== undefined
  ) {
    await app.register(notificationsPlugin, {
      prefix: '/api',
      config: config.marketerAuth,
      verify,
      now,
      notifications: services.notifications,
      people: services.people,
      isDatabaseUnavailable: database.isUnavailable,
    });
  } else if (config.marketerAuth !== undefined) {
    await app.register(notificationsOffPlugin, { prefix: '/api' });
  }
  // POST /api/leads/:id/status, only with LEADS_API_KEY: the CRM's, outside the API's CORS
  if (config.leadsApiKeys !== undefined) {
    await app.register(leadsPlugin, {
      prefix: '/api',
      keys: config.leadsApiKeys,
      leadStatuses: services.leadStatuses,
      now,
    });
  }
  // PUT /api/people, PUT and GET /api/people/:marketing_id, only with PEOPLE_API_KEY: the
  // platform's, outside the API's CORS
  if (config.peopleApiKeys !== undefined) {
    await app.register(peoplePlugin, {
      prefix: '/api',
      keys: config.peopleApiKeys,
      people: services.people,
      now,
    });
  }
  // GET /, GET /register/* (assets and server-rendered pages), POST on the form routes and,
  // with SMTP_URL, on the e-mails' confirmation and unsubscribe pages
  await app.register(pagesPlugin, {
    pages,
    siteUrl: config.siteUrl,
    publicUrl: config.publicUrl,
    brand: config.brand,
    marketerStatsStorageKey: config.marketerAuth?.storageKey,
    visits: services.visits,
    metrics,
    isDatabaseUnavailable: database.isUnavailable,
    notifications: services.notifications,
    ...signUpOptions,
  });
  return { app, services };
}
