import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect';

// One count of a lead (issue 25): the counts kept for deleted submissions keep their lead's
// campaign too, so that the report per campaign and a marketer's numbers count them as the
// report per link does. The totals kept before had no campaign: they count under none ('').
// SQLite cannot change a table's primary key, so the table is made anew and its rows moved.
const link = ['day', 'marketing_id', 'package_key'] as const;
const campaign = ['utm_source', 'utm_campaign'] as const;

async function rebuild(db: Kysely<unknown>, withCampaign: boolean): Promise<void> {
  await db.schema.alterTable('sign_up_totals').renameTo('sign_up_totals_before').execute();
  // PostgreSQL names the key's index after the constraint, and index names are the schema's.
  if (isPostgres(db)) {
    await sql`alter table sign_up_totals_before rename constraint sign_up_totals_pk
      to sign_up_totals_before_pk`.execute(db);
  }
  const table = db.schema
    .createTable('sign_up_totals')
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('marketing_id', 'text', (column) => column.notNull())
    .addColumn('package_key', 'text', (column) => column.notNull())
    .addColumn('leads', 'integer', (column) => column.notNull())
    .addColumn('repeats', 'integer', (column) => column.notNull());
  await (
    withCampaign
      ? table
          .addColumn('utm_source', 'text', (column) => column.notNull().defaultTo(''))
          .addColumn('utm_campaign', 'text', (column) => column.notNull().defaultTo(''))
          .addPrimaryKeyConstraint('sign_up_totals_pk', [...link, ...campaign])
      : table.addPrimaryKeyConstraint('sign_up_totals_pk', [...link])
  ).execute();
  // Going up, the rows before had no campaign; going down, a link's campaigns are added up.
  const key = sql.raw(link.join(', '));
  await sql`insert into sign_up_totals (${key}, leads, repeats)
    select ${key}, sum(leads), sum(repeats) from sign_up_totals_before group by ${key}`.execute(db);
  await db.schema.dropTable('sign_up_totals_before').execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await rebuild(db, true);
  // A marketer's numbers read their leads by campaign too: the index covers it, as it covered
  // the rest, so the count still never reads the table itself.
  await db.schema.dropIndex('registrations_marketing_id_created_at').execute();
  await db.schema
    .createIndex('registrations_marketing_id_created_at')
    .on('registrations')
    .columns([
      'marketing_id',
      'created_at',
      'repeat_of',
      'package_key',
      'utm_source',
      'utm_campaign',
    ])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('registrations_marketing_id_created_at').execute();
  await db.schema
    .createIndex('registrations_marketing_id_created_at')
    .on('registrations')
    .columns(['marketing_id', 'created_at', 'repeat_of', 'package_key'])
    .execute();
  await rebuild(db, false);
}
