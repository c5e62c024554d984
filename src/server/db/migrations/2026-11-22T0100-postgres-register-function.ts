import { sql, type Kysely } from 'kysely';

// PostgreSQL only (see migrate.ts). The duplicate rule in one call, so a sign-up costs one
// round trip instead of five (begin, lock, insert, select, commit). At READ COMMITTED a plain
// INSERT ... WHERE NOT EXISTS lets two identical requests both insert, and a lock taken inside
// that statement comes too late (its snapshot predates the lock); a PL/pgSQL function runs
// each statement on a fresh snapshot, so the check after the lock sees every earlier commit.
// The lock is released when the calling statement's transaction ends.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function register_unless_duplicate(
      new_id text, new_created_at text, new_name text, new_email text, new_phone text,
      new_notes text, new_marketing_id text, new_package_key text, new_source text,
      window_start text
    ) returns table (id text, created boolean) language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock(hashtextextended(new_phone || ' ' || new_notes, 0));
      return query
        select r.id, false from registrations r
        where r.phone = new_phone and r.notes = new_notes and r.created_at > window_start
        order by r.created_at limit 1;
      if found then
        return;
      end if;
      insert into registrations
        (id, created_at, name, email, phone, notes, marketing_id, package_key, source)
        values (new_id, new_created_at, new_name, new_email, new_phone, new_notes,
          new_marketing_id, new_package_key, new_source);
      return query select new_id, true;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function register_unless_duplicate`.execute(db);
}
