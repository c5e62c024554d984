import { sql, type Kysely } from 'kysely';

// An erasure (and each retention chunk) keeps a deleted campaign's name only where the campaign
// is not one person's alone: it looks for a second phone among the campaign's leads. Without
// an index by campaign that read every lead (1,000,000 rows: 0.2-0.5 s on SQLite, 2.1 s on
// PostgreSQL, near its 5 s statement time-out). The campaign as the counts name it ('' for
// none), and only the leads that came with campaign parameters: a sign-up without them, most
// of them, adds nothing to it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index registrations_campaign on registrations
    (coalesce(utm_source, ''), coalesce(utm_campaign, ''), marketing_id, repeat_of, phone)
    where utm_source is not null or utm_campaign is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('registrations_campaign').execute();
}
