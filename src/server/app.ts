import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyError, type FastifyServerOptions } from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { ar } from '../domain/catalogue';
import { openDatabase } from './db/database';
import { migrateToLatest } from './db/migrate';
import type { Config } from './env';
import { pages } from './pages';
import {
  createRegistrationRepository,
  type RegistrationRepository,
} from './registrations/registration-repository';
import { registrationRoutes } from './registrations/registration-routes';

declare module 'fastify' {
  interface FastifyInstance {
    registrations: RegistrationRepository;
  }
}

type LoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

export interface BuildOptions extends Pick<
  FastifyServerOptions,
  'connectionTimeout' | 'requestTimeout' | 'keepAliveTimeout'
> {
  /** Merged over the defaults (a test passes a stream to read the log); redaction always applies. */
  logger?: LoggerOptions | false;
  /** The clock of the 24-hour duplicate rule; tests move it instead of waiting. */
  now?: () => Date;
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

export async function buildApp(config: Config, options: BuildOptions = {}) {
  const { logger, now = () => new Date(), ...timeouts } = options;
  const app = Fastify({
    logger: logger === false ? false : { level: config.logLevel, ...logger, redact },
    trustProxy:
      typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: 16 * 1024,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    ...timeouts,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Only application/json is a registration; text/plain would otherwise be parsed too.
  app.removeContentTypeParser('text/plain');

  const db = openDatabase(config.database);
  await migrateToLatest(db);
  const repository = createRegistrationRepository(db);
  app.decorate('registrations', repository);
  app.addHook('onClose', async () => repository.close());

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

  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
      },
    },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  });

  await app.register(
    async (api) => {
      // An empty list still answers with Vary: Origin and never with an allow-origin header.
      await api.register(cors, {
        origin: config.corsOrigins,
        credentials: true,
        methods: ['POST'],
      });
      await api.register(rateLimit, { global: false });

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

  await app.register(pages, { distDir: config.distDir, siteUrl: config.siteUrl });
  return app;
}
