import { sql, type Kysely } from 'kysely';

// PostgreSQL only (see migrate.ts). The duplicate rule for a batch of sign-ups in one call and
// one transaction, so that a batch costs one round trip and one commit (the repository's group
// commit). At READ COMMITTED a plain INSERT ... WHERE NOT EXISTS lets two identical requests
// both insert, and a lock taken inside that statement comes too late (its snapshot predates
// the lock); a PL/pgSQL function runs each statement on a fresh snapshot, so the check after
// the lock sees every earlier commit, and the batch's own earlier rows. The advisory locks
// are taken in one order for every batch, so two batches cannot deadlock, and are released
// at the commit. Rows come back in the order of the arrays.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function register_unless_duplicate(
      new_ids text[], new_created_ats text[], new_names text[], new_emails text[],
      new_phones text[], new_notes text[], new_marketing_ids text[], new_package_keys text[],
      new_sources text[], window_starts text[]
    ) returns table (id text, created boolean) language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock(lock_key) from (
        select distinct hashtextextended(phone || ' ' || notes, 0) as lock_key
        from unnest(new_phones, new_notes) as sign_up(phone, notes)
        order by lock_key
      ) as lock_keys;
      for i in 1 .. cardinality(new_ids) loop
        return query
          select r.id, false from registrations r
          where r.phone = new_phones[i] and r.notes = new_notes[i]
            and r.created_at > window_starts[i]
          order by r.created_at limit 1;
        if not found then
          insert into registrations
            (id, created_at, name, email, phone, notes, marketing_id, package_key, source)
            values (new_ids[i], new_created_ats[i], new_names[i], new_emails[i], new_phones[i],
              new_notes[i], new_marketing_ids[i], new_package_keys[i], new_sources[i]);
          return query select new_ids[i], true;
        end if;
      end loop;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function register_unless_duplicate`.execute(db);
}
