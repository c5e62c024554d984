import type { Kysely } from 'kysely';
import { leadFlags, type LeadFlag } from '../../domain/lead-review';
import type { Tables } from '../db/schema';

/**
 * Each submission's flags by name, in leadFlags' order, for the export, the webhook events and
 * `npm run person`: never the other lead a `contested` flag names, which may be another
 * person's. The submissions named by id, or every one from `since` on; one with no flag is missing.
 */
export async function flagNames(
  db: Kysely<Tables>,
  submissions: { ids: readonly string[] } | { since: string },
): Promise<Map<string, LeadFlag[]>> {
  if ('ids' in submissions && submissions.ids.length === 0) return new Map();
  const rows = await (
    'ids' in submissions
      ? db
          .selectFrom('lead_flags')
          .select(['registration_id', 'flag'])
          .where('registration_id', 'in', submissions.ids)
      : db
          .selectFrom('lead_flags')
          .innerJoin('registrations', 'registrations.id', 'lead_flags.registration_id')
          .select(['lead_flags.registration_id', 'lead_flags.flag'])
          .where('registrations.created_at', '>=', submissions.since)
  ).execute();
  const flags = new Map<string, LeadFlag[]>();
  for (const { registration_id: id, flag } of rows) flags.set(id, [...(flags.get(id) ?? []), flag]);
  for (const names of flags.values())
    names.sort((a, b) => leadFlags.indexOf(a) - leadFlags.indexOf(b));
  return flags;
}
