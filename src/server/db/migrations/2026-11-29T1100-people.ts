import type { Kysely } from 'kysely';

// Issue 48: the programme's people, as the provider's platform sends them (PUT /api/people, or
// `npm run tasjeel -- people import`), by marketing id. A name is required on every put; it is
// null only once retention has erased it, with the e-mail, from a person inactive since
// inactive_since for RETENTION_DAYS (docs/personal-data.md). team_leader_id need not name a
// person of the directory (the platform may send the members before their leader): no foreign
// key. The index finds a leader's members (a team leader's own page).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('people')
    .addColumn('marketing_id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text')
    .addColumn('team_leader_id', 'text')
    .addColumn('email', 'text')
    .addColumn('active', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('inactive_since', 'text')
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('people_team_leader')
    .on('people')
    .columns(['team_leader_id', 'marketing_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('people').execute();
}
