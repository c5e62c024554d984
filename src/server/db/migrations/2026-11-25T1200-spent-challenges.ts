import type { Kysely } from 'kysely';

// A solved proof-of-work challenge is spent where every instance sees it, Redis or not: one
// row a challenge until it expires (issue 27).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('spent_challenges')
    .addColumn('signature', 'text', (column) => column.primaryKey())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('spent_challenges_expires_at')
    .on('spent_challenges')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('spent_challenges').execute();
}
