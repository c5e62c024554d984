import { Migrator, sql, type Migration } from 'kysely';
import type { Database, DatabaseKind } from './schema';
import * as createRegistrations from './migrations/2025-11-21T2130-create-registrations';
import * as createVisits from './migrations/2026-11-21T2220-create-visits';
import * as postgresRegisterFunction from './migrations/2026-11-22T0100-postgres-register-function';
import * as visitTotals from './migrations/2026-11-23T0930-visit-totals';
import * as repeatOf from './migrations/2026-11-23T1200-repeat-of';
import * as webhookEvents from './migrations/2026-11-23T1500-webhook-events';
import * as campaignParameters from './migrations/2026-11-23T1700-campaign-parameters';
import * as marketerStatsIndexes from './migrations/2026-11-23T1800-marketer-stats-indexes';
import * as signUpTotals from './migrations/2026-11-23T1900-sign-up-totals';
import * as dropRegisterFunctions from './migrations/2026-11-25T0900-drop-register-functions';
import * as signUpTotalsCampaign from './migrations/2026-11-25T0910-sign-up-totals-campaign';
import * as webhookEventSubjects from './migrations/2026-11-25T0920-webhook-event-subjects';
import * as leadStatuses from './migrations/2026-11-25T1100-lead-statuses';
import * as spentChallenges from './migrations/2026-11-25T1200-spent-challenges';
import * as visitAddresses from './migrations/2026-11-25T1210-visit-addresses';
import * as consentEvidence from './migrations/2026-11-25T1300-consent-evidence';
import * as retentionIndexes from './migrations/2026-11-26T1500-retention-indexes';
import * as consentAttested from './migrations/2026-11-26T1510-consent-attested';
import * as leadFlags from './migrations/2026-11-26T1900-lead-flags';
import * as signUpEvidence from './migrations/2026-11-26T1910-sign-up-evidence';
import * as countRollups from './migrations/2026-11-27T0300-count-rollups';
import * as countRollupsByDay from './migrations/2026-11-28T0800-count-rollups-by-day';
import * as registrationsAddressByTime from './migrations/2026-11-28T1300-registrations-address-by-time';
import * as registrationsCampaign from './migrations/2026-11-28T1400-registrations-campaign';
import * as countDayTriggers from './migrations/2026-11-29T0900-count-day-triggers';
import * as registrationsServedAt from './migrations/2026-11-29T0910-registrations-served-at';
import * as people from './migrations/2026-11-29T1100-people';
import * as mailOutbox from './migrations/2026-11-29T1500-mail-outbox';
import * as notifications from './migrations/2026-11-29T1700-notifications';

// Listed by hand rather than read from the folder, so the list works the same under tsx, vitest
// and any bundler. Names sort by their timestamp; append new ones at the end. A module that
// exports `postgres` runs that on PostgreSQL instead; an entry that is `{ postgres }` alone is
// PostgreSQL's only (the stored functions of the versions before 2026-11-25, which SQLite never
// had).
const migrations: Record<string, Migration | { postgres: Migration }> = {
  '2025-11-21T2130-create-registrations': createRegistrations,
  '2026-11-21T2220-create-visits': createVisits,
  '2026-11-22T0100-postgres-register-function': { postgres: postgresRegisterFunction },
  '2026-11-23T0930-visit-totals': visitTotals,
  '2026-11-23T1200-repeat-of': repeatOf,
  '2026-11-23T1500-webhook-events': webhookEvents,
  '2026-11-23T1700-campaign-parameters': campaignParameters,
  '2026-11-23T1800-marketer-stats-indexes': marketerStatsIndexes,
  '2026-11-23T1900-sign-up-totals': signUpTotals,
  '2026-11-25T0900-drop-register-functions': { postgres: dropRegisterFunctions },
  '2026-11-25T0910-sign-up-totals-campaign': signUpTotalsCampaign,
  '2026-11-25T0920-webhook-event-subjects': webhookEventSubjects,
  '2026-11-25T1100-lead-statuses': leadStatuses,
  '2026-11-25T1200-spent-challenges': spentChallenges,
  '2026-11-25T1210-visit-addresses': visitAddresses,
  '2026-11-25T1300-consent-evidence': consentEvidence,
  '2026-11-26T1500-retention-indexes': retentionIndexes,
  '2026-11-26T1510-consent-attested': consentAttested,
  '2026-11-26T1900-lead-flags': leadFlags,
  '2026-11-26T1910-sign-up-evidence': signUpEvidence,
  '2026-11-27T0300-count-rollups': countRollups,
  '2026-11-28T0800-count-rollups-by-day': countRollupsByDay,
  '2026-11-28T1300-registrations-address-by-time': registrationsAddressByTime,
  '2026-11-28T1400-registrations-campaign': registrationsCampaign,
  '2026-11-29T0900-count-day-triggers': countDayTriggers,
  '2026-11-29T0910-registrations-served-at': registrationsServedAt,
  '2026-11-29T1100-people': people,
  '2026-11-29T1500-mail-outbox': mailOutbox,
  '2026-11-29T1700-notifications': notifications,
};

/** Every migration's name, in order: what the kept counts were counted after (count-rollups.ts). */
export const migrationNames = Object.keys(migrations);

/** The migrations a database of this kind runs, by name. */
function migrationsOf(kind: DatabaseKind): Record<string, Migration> {
  const chosen: Record<string, Migration> = {};
  for (const [name, entry] of Object.entries(migrations)) {
    if (kind === 'postgres') chosen[name] = 'postgres' in entry ? entry.postgres : entry;
    else if ('up' in entry) chosen[name] = entry;
  }
  return chosen;
}

// Kysely looks for its own tables in every schema unless told which one; naming the current
// schema (the first of search_path) lets deployments that share a database by schema, as the
// tests do, each keep their own migration history.
async function currentSchema(database: Database): Promise<string | undefined> {
  if (database.kind !== 'postgres') return undefined;
  const { rows } = await sql<{
    schema: string | null;
  }>`select current_schema() as schema`.execute(database.migrations);
  const schema = rows[0]?.schema;
  if (schema == null) throw new Error('no PostgreSQL schema of search_path exists');
  return schema;
}

/**
 * Brings the schema up to date. On PostgreSQL, instances starting at once take turns: the
 * Migrator holds an advisory lock and migrates in one transaction, so the later ones find
 * nothing left to do. SQLite serves a single instance, so it needs no such lock.
 */
export async function migrateToLatest(database: Database): Promise<void> {
  const { error } = await (await migrator(database)).migrateToLatest();
  if (error !== undefined) throw error;
}

/** The migrations this program has and the database has not run; reads, never writes. */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const migrations = await (await migrator(database)).getMigrations();
  return migrations.filter(({ executedAt }) => executedAt === undefined).map(({ name }) => name);
}

/** The Migrator of this program's migrations for the database's kind (tests migrate part way). */
export async function migrator(database: Database): Promise<Migrator> {
  return new Migrator({
    db: database.migrations,
    migrationTableSchema: await currentSchema(database),
    provider: {
      getMigrations: async () => migrationsOf(database.kind),
    },
  });
}
