import type { Kysely } from 'kysely';
import { dropDeletedPages, writeTransaction } from '../db/dialect';
import type {
  Database,
  MailConfirmationsTable,
  MailConsentsTable,
  MailOutboxTable,
  MailSubscribersTable,
  Tables,
} from '../db/schema';
import { notificationsLock } from './notifications';

// Issue 49: the e-mails' addresses and consents are personal data (docs/personal-data.md): found
// and erased by `npm run person`, and deleted by RETENTION_DAYS (plugins/retention.ts).

/** Whose: every row naming an address (any case), or every row of a person of the platform. */
export type MailSelection = { email: string } | { subject: string };

/**
 * What is kept of one person's e-mails, as a request for access is answered. Left out: the
 * columns of their links' tokens (the unsubscribe token, a confirmation's hash), keys to their
 * choices rather than data about them, an e-mail's HTML, which says what its text says, and the
 * sender's lease.
 */
export interface MailRecords {
  subscribers: Omit<MailSubscribersTable, 'unsubscribe_token'>[];
  confirmations: Omit<MailConfirmationsTable, 'token_hash'>[];
  consents: MailConsentsTable[];
  emails: Omit<MailOutboxTable, 'html_body' | 'locked_until'>[];
}

/** How many rows of each an erasure or a retention run deleted. */
export interface MailErased {
  subscribers: number;
  confirmations: number;
  consents: number;
  emails: number;
}

/** The addresses a person's rows hold (their e-mails' recipients). */
async function addressesOf(trx: Kysely<Tables>, subjects: string[]): Promise<string[]> {
  if (subjects.length === 0) return [];
  const rows = await trx
    .selectFrom('mail_subscribers')
    .select('email')
    .where('subject', 'in', subjects)
    .where('email', 'is not', null)
    .union(trx.selectFrom('mail_confirmations').select('email').where('subject', 'in', subjects))
    .union(trx.selectFrom('mail_consents').select('email').where('subject', 'in', subjects))
    .execute();
  return [...new Set(rows.flatMap(({ email }) => (email === null ? [] : [email.toLowerCase()])))];
}

/**
 * Every row of the selection: by address, the rows holding it and the e-mails sent or waiting
 * to it; by subject, the person's rows and the e-mails to the addresses they hold.
 */
export async function findMail(database: Database, selection: MailSelection): Promise<MailRecords> {
  return database.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const byAddress = 'email' in selection;
      const subjects = byAddress ? [] : [selection.subject];
      const addresses = byAddress
        ? [selection.email.toLowerCase()]
        : await addressesOf(trx, subjects);
      const subscribers = await trx
        .selectFrom('mail_subscribers')
        .select([
          'subject',
          'audience',
          'email',
          'confirmed_at',
          'weekly_summary',
          'client_alerts',
          'review_digest',
          'updated_at',
        ])
        .where((eb) =>
          byAddress
            ? eb(eb.fn('lower', ['email']), '=', selection.email.toLowerCase())
            : eb('subject', 'in', subjects),
        )
        .orderBy('subject')
        .execute();
      const confirmations = await trx
        .selectFrom('mail_confirmations')
        .select([
          'subject',
          'email',
          'choices',
          'text_version',
          'created_at',
          'expires_at',
          'used_at',
        ])
        .where((eb) =>
          byAddress
            ? eb(eb.fn('lower', ['email']), '=', selection.email.toLowerCase())
            : eb('subject', 'in', subjects),
        )
        .orderBy('created_at')
        .execute();
      const consents = await trx
        .selectFrom('mail_consents')
        .selectAll()
        .where((eb) =>
          byAddress
            ? eb(eb.fn('lower', ['email']), '=', selection.email.toLowerCase())
            : eb('subject', 'in', subjects),
        )
        .orderBy('consented_at')
        .execute();
      const emails =
        addresses.length === 0
          ? []
          : await trx
              .selectFrom('mail_outbox')
              .select([
                'id',
                'kind',
                'dedupe_key',
                'recipient',
                'subject',
                'text_body',
                'headers',
                'status',
                'attempts',
                'created_at',
                'next_attempt_at',
                'message_id',
                'sent_at',
                'last_error',
              ])
              .where((eb) => eb(eb.fn('lower', ['recipient']), 'in', addresses))
              .orderBy('created_at')
              .execute();
      return { subscribers, confirmations, consents, emails };
    });
}

/** Deletes the rows of `subjects`, and every e-mail to `addresses` (sent, failed or waiting). */
async function deleteRows(
  trx: Kysely<Tables>,
  subjects: string[],
  addresses: string[],
  email: string | undefined,
): Promise<MailErased> {
  const count = (result: { numDeletedRows: bigint }) => Number(result.numDeletedRows);
  const erased = { subscribers: 0, confirmations: 0, consents: 0, emails: 0 };
  for (const table of ['mail_subscribers', 'mail_confirmations', 'mail_consents'] as const) {
    const key = table.slice('mail_'.length) as 'subscribers' | 'confirmations' | 'consents';
    const deleted = await trx
      .deleteFrom(table)
      .where((eb) => {
        const bySubject = subjects.length === 0 ? eb.lit(false) : eb('subject', 'in', subjects);
        return email === undefined
          ? bySubject
          : eb.or([bySubject, eb(eb.fn('lower', ['email']), '=', email.toLowerCase())]);
      })
      .executeTakeFirst();
    erased[key] = count(deleted);
  }
  if (addresses.length > 0) {
    erased.emails = count(
      await trx
        .deleteFrom('mail_outbox')
        .where((eb) => eb(eb.fn('lower', ['recipient']), 'in', addresses))
        .executeTakeFirst(),
    );
  }
  return erased;
}

/**
 * Erases the selection (`npm run person -- --erase`): by address, every row holding it and every
 * e-mail to it, and the whole of each person whose confirmed address it is (their choices go with
 * it); by subject, the person's rows and every e-mail to an address they hold.
 */
export async function eraseMail(database: Database, selection: MailSelection): Promise<MailErased> {
  const erased = await writeTransaction(database, [notificationsLock], async (trx) => {
    if ('subject' in selection) {
      const addresses = await addressesOf(trx, [selection.subject]);
      return deleteRows(trx, [selection.subject], addresses, undefined);
    }
    const confirmedBy = await trx
      .selectFrom('mail_subscribers')
      .select('subject')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', selection.email.toLowerCase()))
      .execute();
    return deleteRows(
      trx,
      confirmedBy.map(({ subject }) => subject),
      [selection.email.toLowerCase()],
      selection.email,
    );
  });
  if (Object.values(erased).some((n) => n > 0)) await dropDeletedPages(database);
  return erased;
}

/**
 * RETENTION_DAYS (docs/personal-data.md#the-e-mails): deletes what is no longer needed from
 * before `before`. A marketer inactive in the directory since before it loses every row and the
 * e-mails waiting to their addresses; an e-mail sent or failed, a confirmation expired or used, a
 * consent to an address no longer in use (stopped, or moved from, before it), and a person's row
 * that holds no address nor choice, all go. A programme role, whom the directory does not hold,
 * keeps their address while they want some e-mail (it is null once they stop every one).
 */
export async function eraseExpiredMail(database: Database, before: string): Promise<MailErased> {
  const erased = await writeTransaction(database, [notificationsLock], async (trx) => {
    const inactive = await trx
      .selectFrom('mail_subscribers')
      .innerJoin('people', 'people.marketing_id', 'mail_subscribers.subject')
      .select('mail_subscribers.subject')
      .where('mail_subscribers.audience', 'in', ['marketer', 'team_leader'])
      .where('people.inactive_since', '<', before)
      .execute();
    const subjects = inactive.map(({ subject }) => subject);
    const addresses = await addressesOf(trx, subjects);
    const erased = await deleteRows(trx, subjects, [], undefined);
    if (addresses.length > 0) {
      erased.emails += Number(
        (
          await trx
            .deleteFrom('mail_outbox')
            .where('status', '=', 'pending')
            .where((eb) => eb(eb.fn('lower', ['recipient']), 'in', addresses))
            .executeTakeFirst()
        ).numDeletedRows,
      );
    }
    erased.emails += Number(
      (
        await trx
          .deleteFrom('mail_outbox')
          .where('status', 'in', ['sent', 'failed'])
          .where('created_at', '<', before)
          .executeTakeFirst()
      ).numDeletedRows,
    );
    erased.confirmations += Number(
      (
        await trx
          .deleteFrom('mail_confirmations')
          .where('expires_at', '<', before)
          .executeTakeFirst()
      ).numDeletedRows,
    );
    // A consent is the record of e-mails sent to its address: kept while they may be, and as
    // long again as any other record once they stopped (the person's row changed since).
    erased.consents += Number(
      (
        await trx
          .deleteFrom('mail_consents')
          .where('consented_at', '<', before)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('mail_subscribers')
                  .select('mail_subscribers.subject')
                  .whereRef('mail_subscribers.subject', '=', 'mail_consents.subject')
                  .where((eb) =>
                    eb.or([
                      eb(
                        eb.fn('lower', ['mail_subscribers.email']),
                        '=',
                        eb.fn('lower', ['mail_consents.email']),
                      ),
                      eb('mail_subscribers.updated_at', '>=', before),
                    ]),
                  ),
              ),
            ),
          )
          .executeTakeFirst()
      ).numDeletedRows,
    );
    erased.subscribers += Number(
      (
        await trx
          .deleteFrom('mail_subscribers')
          .where('email', 'is', null)
          .where('weekly_summary', '=', 0)
          .where('client_alerts', '=', 0)
          .where('review_digest', '=', 0)
          .where('updated_at', '<', before)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('mail_confirmations')
                  .select('mail_confirmations.subject')
                  .whereRef('mail_confirmations.subject', '=', 'mail_subscribers.subject'),
              ),
            ),
          )
          .executeTakeFirst()
      ).numDeletedRows,
    );
    return erased;
  });
  if (Object.values(erased).some((n) => n > 0)) await dropDeletedPages(database);
  return erased;
}
