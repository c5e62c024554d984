import type { Kysely } from 'kysely';

// Plain text columns only, so the same migration runs on SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('registrations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('email', 'text')
    .addColumn('phone', 'text', (column) => column.notNull())
    .addColumn('notes', 'text', (column) => column.notNull())
    .addColumn('marketing_id', 'text')
    .addColumn('package_key', 'text')
    .addColumn('source', 'text')
    .execute();
  // Serves the duplicate check: same phone and notes, newest first.
  await db.schema
    .createIndex('registrations_phone_notes_created_at')
    .on('registrations')
    .columns(['phone', 'notes', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('registrations').execute();
}
