import { randomBytes } from 'node:crypto';
import type { Database, MailSubscribersTable } from '../src/server/db/schema';

/**
 * A person's choices as the notifications' API leaves them once confirmed, written straight to
 * the table: the tests of what is sent need subscribers, not the asking and confirming. Every
 * choice off and the address confirmed unless given; the unsubscribe token random.
 */
export async function subscribe(
  database: Database,
  person: Pick<MailSubscribersTable, 'subject' | 'audience'> &
    Partial<Omit<MailSubscribersTable, 'subject' | 'audience'>>,
): Promise<MailSubscribersTable> {
  const at = new Date().toISOString();
  const row: MailSubscribersTable = {
    email: `${person.subject}@people.example`,
    confirmed_at: person.email === null ? null : at,
    weekly_summary: 0,
    client_alerts: 0,
    review_digest: 0,
    unsubscribe_token: randomBytes(16).toString('base64url'),
    updated_at: at,
    ...person,
  };
  await database.db.insertInto('mail_subscribers').values(row).execute();
  return row;
}
