import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import Fastify, { LogController, type FastifyError, type FastifyServerOptions } from 'fastify';
import helmet from 'helmet';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { ar } from '../domain/catalogue';
import { DatabaseUnavailableError, describeError, openDatabase } from './db/database';
import { migrateToLatest } from './db/migrate';
import type { Config } from './env';
import { loadBuild, pages } from './pages';
import {
  createRegistrationRepository,
  type RegistrationRepository,
} from './registrations/registration-repository';
import { registrationRoutes } from './registrations/registration-routes';
import { createVisitCounter, type VisitCounter } from './visits/visit-counter';
import { createVisitRepository } from './visits/visit-repository';

declare module 'fastify' {
  interface FastifyInstance {
    registrations: RegistrationRepository;
    visits: VisitCounter;
  }
}

type LoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

export interface BuildOptions extends Pick<
  FastifyServerOptions,
  'connectionTimeout' | 'requestTimeout' | 'keepAliveTimeout'
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
}

// Defence in depth: nothing logs bodies, but if one ever does, these never reach a log line.
const redact = {
  paths: ['req.body', 'body', 'payload', 'input', '*.name', '*.phone', '*.email'],
  censor: '[redacted]',
};

/** What a shed request is told to wait before trying again. */
export const underPressureRetryAfterSeconds = 5;

// Fastify takes a hop count at run time but its types do not; this is what it does with one.
function trustHops(count: number) {
  return (_address: string, hop: number) => hop < count;
}

export async function buildApp(config: Config, options: BuildOptions = {}) {
  const { logger, now = () => new Date(), maxEventLoopDelay = 0, ...timeouts } = options;
  // Read first: the CSP below names its inline script, and a missing build stops the start
  // before anything is opened.
  const build = await loadBuild(config.distDir);
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
    // Two log lines for every request cost an eighth of the API's throughput (npm run bench);
    // refusals and errors are still logged, and the reverse proxy keeps the access log.
    logController: new LogController({ disableRequestLogging: true }),
    ...timeouts,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Only application/json is a registration; text/plain would otherwise be parsed too.
  app.removeContentTypeParser('text/plain');

  const database = await openDatabase(config.database, (error) =>
    app.log.warn({ err: error }, 'an idle database connection was lost; the pool opens anew'),
  );
  // A database that does not answer at start-up stops the start, with one clear line: the
  // schema cannot be known to be current, and the supervisor (systemd, the orchestrator)
  // restarts the instance. Once started, an outage is answered 503 until it ends.
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw new Error(
      `The database (${database.where}) could not be migrated at start-up: ${describeError(error)}`,
      { cause: error },
    );
  }
  const repository = createRegistrationRepository(database);
  app.decorate('registrations', repository);
  const visits = createVisitCounter(createVisitRepository(database), { now, log: app.log });
  app.decorate('visits', visits);
  // The last visits are written before the database closes.
  app.addHook('onClose', async () => {
    await visits.close();
    await repository.close();
  });

  // ioredis is loaded only where Redis is configured: a single instance never needs it.
  const redis =
    config.redisUrl === undefined
      ? undefined
      : (await import('./redis')).openRedis(config.redisUrl, (error) =>
          app.log.warn({ err: error }, 'the rate-limit store (Redis) does not answer'),
        );
  app.addHook('onClose', async () => redis?.disconnect());

  // Every refusal is JSON with Arabic text from the catalogue. The log gets the code and, for
  // validation, the failing paths: never error messages below 500, since a JSON syntax error
  // quotes the body and the body holds a name and a phone number.
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const fields = error.validation.map(({ instancePath, keyword }) => ({
        instancePath,
        keyword,
      }));
      request.log.info({ fields }, 'registration refused: invalid fields');
      return reply.code(400).send({ error: ar.errorInvalid });
    }
    if (error instanceof DatabaseUnavailableError) {
      request.log.error({ err: error }, 'database unavailable');
      return reply.code(503).send({ error: ar.errorGeneric });
    }
    const status = error.statusCode ?? 500;
    if (status === 429) return reply.code(429).send({ error: ar.errorTooManyRequests });
    if (status >= 400 && status < 500) {
      request.log.info({ code: error.code, status }, 'request refused');
      return reply.code(status).send({ error: ar.errorBadRequest });
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.code(500).send({ error: ar.errorGeneric });
  });
  // Other methods on the API routes land here too: 404 rather than 405, one answer for all.
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: ar.errorBadRequest }));

  // @fastify/helmet calls helmet(options) anew on every request, parsing the CSP each time: a
  // fifth of the API's throughput in `npm run bench`. The same middleware, built once.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // The inline script that starts the app, by hash: never 'unsafe-inline'.
        scriptSrc: ["'self'", ...build.scriptHashes],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
      },
    },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // The same as frame-ancestors 'none', for browsers that only know X-Frame-Options.
    frameguard: { action: 'deny' },
  });
  app.addHook('onRequest', (request, reply, done) =>
    securityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as FastifyError)),
  );

  // Load shedding: once the event loop lags maxEventLoopDelay behind, a request is answered 503
  // at once (with Retry-After and the Arabic "try again shortly") instead of joining a queue
  // that only grows until clients time out. Event-loop delay measures that queue; utilisation
  // does not: a synchronous SQLite commit counts as busy, and on a shared 2-core machine one
  // client sending sign-ups one after another already reads 0.9. Registered after helmet, so
  // the 503 carries the security headers. The figures are in docs/reliability.md.
  await app.register(underPressure, {
    maxEventLoopDelay,
    // Sampled twice a second: shedding starts and stops within half a second, and the slow
    // first requests of a cold start do not weigh enough in the mean to shed anything.
    sampleInterval: 500,
    // Only the API sheds: a page or asset refused half-way would leave a visitor a page that
    // never comes to life, and serving them is cheap. Returning without an answer lets a
    // request through; a sent answer ends it.
    pressureHandler: (request, reply) => {
      if (!request.url.startsWith('/api/')) return;
      void reply
        .code(503)
        .header('retry-after', underPressureRetryAfterSeconds)
        .send({ error: ar.errorTooManyRequests });
    },
  });

  await app.register(
    async (api) => {
      // An empty list still answers with Vary: Origin and never with an allow-origin header.
      await api.register(cors, {
        origin: config.corsOrigins,
        credentials: true,
        methods: ['POST'],
      });
      await api.register(rateLimit, {
        global: false,
        // With Redis, every instance counts against the same keys; without, each counts alone.
        redis,
        nameSpace: 'tasjeel-rate-limit:',
        // Fail open: when Redis is down, sign-ups go on without a limit rather than fail.
        skipOnError: true,
      });

      api.get('/health', async (request, reply) => {
        try {
          await repository.ping();
          return await reply.send({ status: 'ok' });
        } catch (error) {
          request.log.error({ err: error }, 'database did not answer');
          return reply.code(503).send({ status: 'unavailable' });
        }
      });
      await api.register(registrationRoutes, {
        repository,
        now,
        rateLimitPerMinute: config.rateLimitPerMinute,
      });
    },
    { prefix: '/api' },
  );

  await app.register(pages, {
    build,
    siteUrl: config.siteUrl,
    publicUrl: config.publicUrl,
    visits,
  });
  return app;
}
