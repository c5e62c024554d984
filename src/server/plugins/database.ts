import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import { describeError, openDatabase } from '../db/database';
import { migrateToLatest } from '../db/migrate';
import type { DatabaseConfig } from '../env';
import {
  createRegistrationRepository,
  type RegistrationRepository,
} from '../registrations/registration-repository';
import { deleteSubmissions, type Deleted, type Selection } from '../registrations/personal-data';
import { createOutbox, type Outbox } from '../webhooks/outbox';
import { createVisitCounter, type VisitCounter } from '../visits/visit-counter';
import { createVisitRepository, type VisitRepository } from '../visits/visit-repository';
import { createVisitSalts } from '../visits/visit-salts';

declare module 'fastify' {
  interface FastifyInstance {
    registrations: RegistrationRepository;
    /** Sign-ups are arriving faster than they would be answered one at a time. */
    signUpsCrowding: () => boolean;
    visits: VisitCounter;
    /** The stored visits, for reading (the marketers' numbers). */
    visitRepository: VisitRepository;
    /** The webhook events (plugins/webhooks.ts delivers them). */
    outbox: Outbox;
    /** Deletes submissions and their events, their counts kept (plugins/retention.ts). */
    deleteSubmissions: (selection: Selection) => Promise<Deleted>;
  }
}

/** The mean sign-ups per commit from which they crowd in, and how recent its last batch must be. */
const crowdedBatch = 4;
const crowdedWithinMs = 100;

export interface DatabasePluginOptions {
  database: DatabaseConfig;
  /** The clock of the 24-hour duplicate rule and of the visits' days; tests move it. */
  now: () => Date;
  /** Webhooks are on: each sign-up writes its event in its own transaction. */
  webhookEvents: boolean;
}

/** Opens the database, brings its schema up to date, and decorates the app with its data. */
export const databasePlugin = fp<DatabasePluginOptions>(
  async (app, { database: config, now, webhookEvents }) => {
    const database = await openDatabase(config, (error) =>
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
    const { metrics } = app;
    // Sign-ups that arrive together are committed together, so the batches' size says whether
    // they crowd in: a moving mean of it, which counts only while batches keep coming.
    let batchMean = 0;
    let batchAt = -Infinity;
    const registrations = createRegistrationRepository(database, {
      webhookEvents,
      observeBatch: (size, seconds) => {
        batchMean = 0.8 * batchMean + 0.2 * size;
        batchAt = performance.now();
        metrics?.batchSize.observe({ database: database.kind }, size);
        metrics?.commitDuration.observe({ database: database.kind }, seconds);
      },
      onUnavailable: metrics ? () => metrics.databaseErrors.inc() : undefined,
    });
    if (metrics && database.kind === 'postgres') {
      const pool = database.driver;
      new Gauge({
        name: 'tasjeel_database_connections',
        help: 'PostgreSQL pool connections by state (in use, idle, and requests waiting for one).',
        labelNames: ['state'] as const,
        registers: [metrics.registry],
        collect() {
          this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
          this.set({ state: 'idle' }, pool.idleCount);
          this.set({ state: 'waiting' }, pool.waitingCount);
        },
      });
    }
    const salts = createVisitSalts(app.redis, (error) =>
      app.log.warn({ err: error }, 'the visitor salt is kept in memory: Redis does not answer'),
    );
    const visitRepository = createVisitRepository(database);
    const visits = createVisitCounter(visitRepository, {
      salts,
      now,
      log: app.log,
    });
    app.decorate(
      'signUpsCrowding',
      () => batchMean >= crowdedBatch && performance.now() - batchAt < crowdedWithinMs,
    );
    app.decorate('registrations', registrations);
    app.decorate('visits', visits);
    app.decorate('visitRepository', visitRepository);
    app.decorate('outbox', createOutbox(database));
    app.decorate('deleteSubmissions', (selection: Selection) =>
      deleteSubmissions(database, selection),
    );
    // The last visits are written before the database closes.
    app.addHook('onClose', async () => {
      await visits.close();
      await registrations.close();
    });
  },
  { name: 'database', dependencies: ['redis', 'metrics'] },
);
