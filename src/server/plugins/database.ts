import fp from 'fastify-plugin';
import { describeError, openDatabase } from '../db/database';
import { migrateToLatest } from '../db/migrate';
import type { DatabaseConfig } from '../env';
import {
  createRegistrationRepository,
  type RegistrationRepository,
} from '../registrations/registration-repository';
import { createVisitCounter, type VisitCounter } from '../visits/visit-counter';
import { createVisitRepository } from '../visits/visit-repository';
import { createVisitSalts } from '../visits/visit-salts';

declare module 'fastify' {
  interface FastifyInstance {
    registrations: RegistrationRepository;
    visits: VisitCounter;
  }
}

export interface DatabasePluginOptions {
  database: DatabaseConfig;
  /** The clock of the 24-hour duplicate rule and of the visits' days; tests move it. */
  now: () => Date;
}

/** Opens the database, brings its schema up to date, and decorates the app with its data. */
export const databasePlugin = fp<DatabasePluginOptions>(
  async (app, { database: config, now }) => {
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
    const registrations = createRegistrationRepository(database);
    const salts = createVisitSalts(app.redis, (error) =>
      app.log.warn({ err: error }, 'the visitor salt is kept in memory: Redis does not answer'),
    );
    const visits = createVisitCounter(createVisitRepository(database), {
      salts,
      now,
      log: app.log,
    });
    app.decorate('registrations', registrations);
    app.decorate('visits', visits);
    // The last visits are written before the database closes.
    app.addHook('onClose', async () => {
      await visits.close();
      await registrations.close();
    });
  },
  { name: 'database', dependencies: ['redis'] },
);
