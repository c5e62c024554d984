import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect';

// The outbox is not tied to registrations (issue 25): an event has a type and a subject, whose
// id its type says how to read (today a registration's), so that a new kind of event needs no
// new table. Without the foreign key, erasure and retention delete a person's events
// themselves, in the transaction that deletes their submissions.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table webhook_events
      drop constraint webhook_events_registration_id_fkey`.execute(db);
    await sql`alter table webhook_events rename column registration_id to subject_id`.execute(db);
    await sql`alter index webhook_events_registration rename to webhook_events_subject`.execute(db);
    return;
  }
  // SQLite cannot drop a foreign key: the table is made anew and its rows moved.
  await rebuild(db, 'subject_id');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Events whose subject is gone could not keep the foreign key.
  await sql`delete from webhook_events
    where subject_id not in (select id from registrations)`.execute(db);
  if (isPostgres(db)) {
    await sql`alter index webhook_events_subject rename to webhook_events_registration`.execute(db);
    await sql`alter table webhook_events rename column subject_id to registration_id`.execute(db);
    await sql`alter table webhook_events add constraint webhook_events_registration_id_fkey
      foreign key (registration_id) references registrations (id) on delete cascade`.execute(db);
    return;
  }
  await rebuild(db, 'registration_id');
}

/** SQLite: webhook_events anew, its subject in `subject` (with the foreign key going down). */
async function rebuild(db: Kysely<unknown>, subject: 'subject_id' | 'registration_id') {
  const before = subject === 'subject_id' ? 'registration_id' : 'subject_id';
  await db.schema.alterTable('webhook_events').renameTo('webhook_events_before').execute();
  await db.schema.dropIndex('webhook_events_due').execute();
  await db.schema
    .dropIndex(`webhook_events_${before === 'subject_id' ? 'subject' : 'registration'}`)
    .execute();
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn(subject, 'text', (column) =>
      subject === 'subject_id'
        ? column.notNull()
        : column.notNull().references('registrations.id').onDelete('cascade'),
    )
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('next_attempt_at', 'text', (column) => column.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('last_error', 'text')
    .execute();
  // The columns in the same order: only the subject's name changed.
  await sql`insert into webhook_events select * from webhook_events_before`.execute(db);
  await db.schema.dropTable('webhook_events_before').execute();
  await db.schema
    .createIndex('webhook_events_due')
    .on('webhook_events')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex(`webhook_events_${subject === 'subject_id' ? 'subject' : 'registration'}`)
    .on('webhook_events')
    .column(subject)
    .execute();
}
