import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { describeError, openDatabase } from './db/database';
import { migrateToLatest } from './db/migrate';
import type { Database } from './db/schema';
import type { Config } from './env';
import { createMailOutbox, type MailOutbox } from './mail/mail-outbox';
import { createClientNotes } from './mail/client-notes';
import { mailLinks, type MailLinks } from './mail/mail-links';
import { createNotifications, type NotificationsStore } from './mail/notifications';
import { createLeadReviews, type LeadReviews } from './leads/lead-reviews';
import { createLeadStatuses, type LeadStatuses } from './leads/lead-statuses';
import { createMetrics, type Metrics } from './metrics';
import { createPeople, type People } from './people/people';
import { createProofOfWork, type ProofOfWork } from './registrations/proof-of-work';
import { createSignUpEvidence, type SignUpEvidenceSource } from './registrations/sign-up-evidence';
import {
  createRegistrationRepository,
  type RegistrationRepository,
} from './registrations/registration-repository';
import { createVisitCounter, type VisitCounter } from './visits/visit-counter';
import { createVisitRepository } from './visits/visit-repository';
import { createVisitSalts } from './visits/visit-salts';
import { createOutbox, type Outbox } from './webhooks/outbox';

/**
 * What the plugins work with, built once at start (buildApp) and handed to the plugins that
 * need each part: no plugin finds another's service on the app.
 */
export interface Services {
  database: Database;
  /** The store that instances share (rate-limit counters, the visitor salt); when configured. */
  redis: Redis | undefined;
  /** Set when METRICS_PORT is: the plugins record into it. */
  metrics: Metrics | null;
  registrations: RegistrationRepository;
  /** What became of each lead (POST /api/leads/:id/status). */
  leadStatuses: LeadStatuses;
  /** The decisions on leads' credit (POST /api/program/leads/:id/review). */
  leadReviews: LeadReviews;
  /** The programme's people (PUT /api/people), by marketing id. */
  people: People;
  /** Notes page visits in memory; plugins/visits.ts writes them every second. */
  visits: VisitCounter;
  /** The webhook events (plugins/webhooks.ts delivers them). */
  outbox: Outbox;
  /** The e-mails queued (plugins/mail.ts sends them when SMTP_URL is set). */
  mailOutbox: MailOutbox;
  /** Set with e-mail on (SMTP_URL and PUBLIC_URL): what the e-mails link to, and the brand. */
  mailLinks: MailLinks | undefined;
  /** What each person asks to be e-mailed (PUT /api/notifications); set with e-mail on. */
  notifications: NotificationsStore | undefined;
  /** Set (ALTCHA_HMAC_KEY): a sign-up must carry a solved challenge. */
  proofOfWork: ProofOfWork | undefined;
  /** The forms' stamps, and the sign-ups' address hashes, for the flags. */
  evidence: SignUpEvidenceSource;
  /** Set at SIGTERM (serve.ts): /api/ready answers 503 until the server closes. */
  lifecycle: { draining: boolean };
  /** Closes the database and Redis; the plugins have stopped their work first. */
  close(): Promise<void>;
}

/**
 * Opens the database and brings its schema up to date, connects Redis when configured, and
 * builds the services on them. A database that does not answer at start-up stops the start,
 * with one clear line: the schema cannot be known to be current, and the supervisor (systemd,
 * the orchestrator) restarts the instance. Once started, an outage is answered 503 until it ends.
 */
export async function createServices(
  config: Config,
  log: FastifyBaseLogger,
  /** The clock of the visits' days; tests move it. */
  now: () => Date,
): Promise<Services> {
  const database = await openDatabase(config.database, (error) =>
    log.warn(
      { err: error },
      'a database connection was lost; the pool opens a new one when needed',
    ),
  );
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw new Error(
      `The database (${database.where}) could not be migrated at start-up: ${describeError(error)}`,
      { cause: error },
    );
  }
  // ioredis is loaded only where Redis is configured: a single instance never needs it.
  const redis =
    config.redisUrl === undefined
      ? undefined
      : (await import('./redis')).openRedis(config.redisUrl, (error) =>
          log.warn(
            { err: error },
            'Redis does not answer: the rate limit is skipped, the visitor salt kept in memory',
          ),
        );
  const metrics = config.metricsPort === undefined ? null : createMetrics();
  const registrations = createRegistrationRepository(database, {
    webhookEvents: config.webhooks !== undefined,
    privacyNotice: { url: config.brand.privacyUrl, version: config.brand.privacyVersion },
    observeBatch: metrics
      ? (size, seconds) => {
          metrics.batchSize.observe({ database: database.kind }, size);
          metrics.commitDuration.observe({ database: database.kind }, seconds);
        }
      : undefined,
    onUnavailable: metrics ? () => metrics.databaseErrors.inc() : undefined,
    flagSettings: config.flags,
  });
  // With e-mail on, a lead that becomes a client is a note to its marketer (docs/notifications.md).
  const links =
    config.mail === undefined || config.publicUrl === undefined
      ? undefined
      : mailLinks(config.publicUrl, config.brand);
  const salts = createVisitSalts(redis, (error) =>
    log.warn({ err: error }, 'the visitor salt is kept in memory: Redis does not answer'),
  );
  return {
    database,
    redis,
    metrics,
    registrations,
    leadStatuses: createLeadStatuses(database, links && createClientNotes(links)),
    leadReviews: createLeadReviews(database),
    people: createPeople(database),
    visits: createVisitCounter(createVisitRepository(database), { salts, now, log }),
    // Under the visits' salt: a sign-up's address hash is its visit's.
    evidence: createSignUpEvidence(config.formStampKey, salts),
    outbox: createOutbox(database),
    mailOutbox: createMailOutbox(database),
    mailLinks: links,
    notifications: links && createNotifications(database, links),
    // One for the API and the pages' form posts; a solved challenge is spent with its sign-up.
    proofOfWork:
      config.altchaHmacKey === undefined ? undefined : createProofOfWork(config.altchaHmacKey),
    lifecycle: { draining: false },
    async close() {
      redis?.disconnect();
      await database.close();
    },
  };
}
