import type { Kysely } from 'kysely';
import type { MailKind, NotificationChoice } from '../../domain/notifications';
import type { MailSubscribersTable, Tables } from '../db/schema';
import type { MailLinks } from './mail-links';

/** A person an e-mail of a kind may go to: the address they confirmed, and their link's token. */
export type Subscriber = Pick<
  MailSubscribersTable,
  'subject' | 'audience' | 'unsubscribe_token'
> & { email: string };

/**
 * Who wants the e-mails of `choice` now (docs/notifications.md): the choice on, and an address
 * confirmed (an e-mail is queued only to one), by subject; only `subjects` when given.
 */
export async function subscribersWanting(
  db: Kysely<Tables>,
  choice: NotificationChoice,
  subjects?: readonly string[],
): Promise<Subscriber[]> {
  if (subjects?.length === 0) return [];
  const rows = await db
    .selectFrom('mail_subscribers')
    .select(['subject', 'audience', 'email', 'unsubscribe_token'])
    .where(choice, '=', 1)
    .where('email', 'is not', null)
    .$if(subjects !== undefined, (query) => query.where('subject', 'in', subjects!))
    .orderBy('subject')
    .execute();
  return rows.map((row) => ({ ...row, email: row.email! }));
}

/**
 * What every e-mail carries (RFC 2369 and RFC 8058): its one-click unsubscribe link, which stops
 * that kind of e-mail for that person (the confirmation's withdraws the request).
 */
export function unsubscribeHeaders(
  links: MailLinks,
  kind: MailKind,
  token: string,
): Record<string, string> {
  return {
    'List-Unsubscribe': `<${links.unsubscribe(kind, token)}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  };
}
