import { Migrator, type Kysely, type Migration } from 'kysely';
import * as createRegistrations from './migrations/2025-11-21T2130-create-registrations';

// Listed by hand rather than read from the folder, so the list works the same under tsx,
// vitest and any bundler. Names sort by their timestamp; append new ones at the end.
const migrations: Record<string, Migration> = {
  '2025-11-21T2130-create-registrations': createRegistrations,
};

export async function migrateToLatest<T>(db: Kysely<T>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}
