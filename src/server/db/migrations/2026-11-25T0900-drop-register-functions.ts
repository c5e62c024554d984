import { sql, type Kysely } from 'kysely';
import { createCampaignRegisterSignUps } from './2026-11-23T1700-campaign-parameters';

// PostgreSQL only (see migrate.ts). The repeat rule and the webhook event are TypeScript now
// (registrations/registration-repository.ts), written once for both databases, so the stored
// functions go. An instance of an older version calls them: every one must be stopped before
// this version starts (docs/deploying.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop function if exists register_unless_duplicate`.execute(db);
  await sql`drop function if exists register_sign_ups`.execute(db);
}

// Going down, the previous version's functions come back, as its migrations left them.
export async function down(db: Kysely<unknown>): Promise<void> {
  await createCampaignRegisterSignUps(db);
  await sql`
    create function register_unless_duplicate(
      new_ids text[], new_created_ats text[], new_names text[], new_emails text[],
      new_phones text[], new_notes text[], new_marketing_ids text[], new_package_keys text[],
      new_sources text[], window_starts text[]
    ) returns table (id text, created boolean) language sql volatile as $$
      select * from register_sign_ups(new_ids, new_created_ats, new_names, new_emails,
        new_phones, new_notes, new_marketing_ids, new_package_keys, new_sources, window_starts,
        null)
    $$`.execute(db);
}
