import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { parseNotes, type Source } from '../../domain/notes';
import type { Registration } from '../../domain/registration';
import type { Database, RegistrationsTable } from '../db/database';

const duplicateWindowMs = 24 * 60 * 60 * 1000;

export interface StoredRegistration {
  id: string;
  createdAt: string;
  name: string;
  email: string | null;
  phone: string;
  notes: string;
  marketingId: string | null;
  packageKey: string | null;
  source: Source | null;
}

export interface RegisterResult {
  id: string;
  created: boolean;
}

export type RegistrationRepository = ReturnType<typeof createRegistrationRepository>;

function toStored(row: RegistrationsTable): StoredRegistration {
  return {
    id: row.id,
    createdAt: row.created_at,
    name: row.name,
    email: row.email,
    phone: row.phone,
    notes: row.notes,
    marketingId: row.marketing_id,
    packageKey: row.package_key,
    source: row.source as Source | null,
  };
}

export function createRegistrationRepository(db: Kysely<Database>) {
  return {
    /**
     * Stores a sign-up unless the same phone sent the same notes in the last 24 hours; then
     * the earlier row stands (its marketer keeps the credit) and its id is returned.
     */
    async register(input: Registration, now: Date): Promise<RegisterResult> {
      const id = randomUUID();
      const windowStart = new Date(now.getTime() - duplicateWindowMs).toISOString();
      const { packageKey, source } = parseNotes(input.notes);
      const sameSignUp = db
        .selectFrom('registrations')
        .select('id')
        .where('phone', '=', input.phone)
        .where('notes', '=', input.notes)
        .where('created_at', '>', windowStart);

      // One INSERT ... SELECT ... WHERE NOT EXISTS statement: SQLite runs it under its single
      // write lock, so concurrent identical requests cannot both insert. PostgreSQL at READ
      // COMMITTED does not give that guarantee; its repository will need a lock (for example
      // pg_advisory_xact_lock on the phone) around the same statement.
      const result = await db
        .insertInto('registrations')
        .columns([
          'id',
          'created_at',
          'name',
          'email',
          'phone',
          'notes',
          'marketing_id',
          'package_key',
          'source',
        ])
        .expression(
          db
            .selectNoFrom((eb) => [
              eb.val(id).as('id'),
              eb.val(now.toISOString()).as('created_at'),
              eb.val(input.name).as('name'),
              eb.val(input.email || null).as('email'),
              eb.val(input.phone).as('phone'),
              eb.val(input.notes).as('notes'),
              eb.val(input.marketing_id ?? null).as('marketing_id'),
              eb.val(packageKey).as('package_key'),
              eb.val(source).as('source'),
            ])
            .where((eb) => eb.not(eb.exists(sameSignUp))),
        )
        .executeTakeFirst();
      if (result.numInsertedOrUpdatedRows === 1n) return { id, created: true };

      const first = await sameSignUp.orderBy('created_at').executeTakeFirstOrThrow();
      return { id: first.id, created: false };
    },

    /** Every stored registration, oldest first, optionally only those from `since` on. */
    async list({ since }: { since?: Date } = {}): Promise<StoredRegistration[]> {
      let query = db.selectFrom('registrations').selectAll().orderBy('created_at').orderBy('id');
      if (since !== undefined) query = query.where('created_at', '>=', since.toISOString());
      return (await query.execute()).map(toStored);
    },

    /** Throws when the database does not answer. */
    async ping(): Promise<void> {
      await sql`select 1`.execute(db);
    },

    async close(): Promise<void> {
      await db.destroy();
    },
  };
}
