import type { Kysely } from 'kysely';

// The marketers' numbers (issue 17) read one marketer's rows over a period: without these, each
// request would scan every sign-up and visit. A lead is a row whose repeat_of is null; the
// index holds repeat_of and package_key too, so the count never reads the table itself.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('registrations_marketing_id_created_at')
    .on('registrations')
    .columns(['marketing_id', 'created_at', 'repeat_of', 'package_key'])
    .execute();
  await db.schema
    .createIndex('visits_marketing_id_day')
    .on('visits')
    .columns(['marketing_id', 'day'])
    .execute();
  await db.schema
    .createIndex('visit_totals_marketing_id_day')
    .on('visit_totals')
    .columns(['marketing_id', 'day'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('visit_totals_marketing_id_day').execute();
  await db.schema.dropIndex('visits_marketing_id_day').execute();
  await db.schema.dropIndex('registrations_marketing_id_created_at').execute();
}
