import type { Kysely } from 'kysely';

// The consent's evidence (issue 28): each submission keeps the privacy notice the form linked
// (PRIVACY_URL, PRIVACY_VERSION) and its channel (`api` or `form`). Rows stored before were
// never recorded: they are kept with '' in each, as a submission with no notice configured is.
// Instances of the previous version, still running during a rolling deploy, store '' too.
const columns = ['privacy_url', 'privacy_version', 'channel'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of columns) {
    await db.schema
      .alterTable('registrations')
      .addColumn(column, 'text', (col) => col.notNull().defaultTo(''))
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of columns) {
    await db.schema.alterTable('registrations').dropColumn(column).execute();
  }
}
