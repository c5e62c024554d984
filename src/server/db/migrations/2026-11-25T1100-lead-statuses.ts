import { sql, type Kysely } from 'kysely';

// What became of each lead (issue 26). A lead's status is on its first row, with the time of its
// last change (null while it has never changed); a repeat has none, its lead's status being the
// one. Every change is kept in lead_status_changes, the subject of its webhook event. The counts
// kept for deleted leads keep their outcomes, so that numbers do not fall when retention runs.
const outcomes = ['contacted', 'qualified', 'clients', 'lost'] as const;
const indexBefore = [
  'marketing_id',
  'created_at',
  'repeat_of',
  'package_key',
  'utm_source',
  'utm_campaign',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('registrations')
    .addColumn('status', 'text', (column) => column.defaultTo('new'))
    .execute();
  await db.schema.alterTable('registrations').addColumn('status_changed_at', 'text').execute();
  await sql`update registrations set status = null where repeat_of is not null`.execute(db);
  await db.schema
    .createTable('lead_status_changes')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('registration_id', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('previous_status', 'text', (column) => column.notNull())
    .addColumn('changed_at', 'text', (column) => column.notNull())
    .addColumn('changed_by', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('lead_status_changes_registration')
    .on('lead_status_changes')
    .columns(['registration_id', 'changed_at'])
    .execute();
  for (const outcome of outcomes) {
    await db.schema
      .alterTable('sign_up_totals')
      .addColumn(outcome, 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
  }
  // A marketer's clients are counted from the same index as their leads, never the table.
  await db.schema.dropIndex('registrations_marketing_id_created_at').execute();
  await db.schema
    .createIndex('registrations_marketing_id_created_at')
    .on('registrations')
    .columns([...indexBefore, 'status'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('registrations_marketing_id_created_at').execute();
  await db.schema
    .createIndex('registrations_marketing_id_created_at')
    .on('registrations')
    .columns([...indexBefore])
    .execute();
  for (const outcome of outcomes) {
    await db.schema.alterTable('sign_up_totals').dropColumn(outcome).execute();
  }
  await db.schema.dropTable('lead_status_changes').execute();
  await db.schema.alterTable('registrations').dropColumn('status_changed_at').execute();
  await db.schema.alterTable('registrations').dropColumn('status').execute();
}
