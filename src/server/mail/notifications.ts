import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { notificationsTextVersion } from '../../domain/catalogue/notifications';
import {
  choiceOfKind,
  choicesFor,
  confirmationDays,
  confirmationsPerDay,
  notificationChoices,
  type Audience,
  type Choices,
  type MailKind,
  type NotificationChoice,
  type Notifications,
} from '../../domain/notifications';
import type { NotificationsInput } from '../../domain/notifications-input';
import { composeConfirmation, type ComposedMail } from '../../mail/compose';
import { guarded } from '../db/database';
import { writeTransaction } from '../db/dialect';
import type { Database, MailConfirmationsTable, MailSubscribersTable, Tables } from '../db/schema';
import type { MailLinks } from './mail-links';
import { queueMail } from './mail-outbox';
import { unsubscribeHeaders } from './subscribers';

// Issue 49: what each person asks to be told, the confirmation of their address, and the
// stopping (docs/notifications.md).
//
// How a choice is kept before its address is confirmed: `mail_subscribers` holds only what may
// be sent now, the confirmed address and the choices confirmed for it (turned off at once,
// turned on only at that address); what the person asked for beyond it waits in their one
// confirmation awaiting use (address and choices), and GET answers that. The senders read
// `mail_subscribers` alone, so nothing but the confirmation e-mail ever goes to an address
// not confirmed, and nothing asked for is sent before its confirmation.

/** Who asks, as the platform's token and the directory tell. */
export interface NotificationsUser {
  /** The token's subject: a marketer's marketing id, or a programme role's user. */
  subject: string;
  audience: Audience;
  /** The address known without typing one: the directory's, else the token's `email` claim. */
  email: string | undefined;
}

export type PutOutcome =
  | { kind: 'done'; notifications: Notifications }
  /** A choice set true that does not fit the person (400). */
  | { kind: 'not_offered' }
  /** A choice set true and no address known nor typed (400). */
  | { kind: 'no_address' }
  /** Past the confirmation e-mails' limits (429): nothing changed. */
  | { kind: 'limited' };

/** The choices, confirmations and stopping of the e-mails, on both databases. */
export interface NotificationsStore {
  /** What the person asked for (their confirmation awaiting use, else what is kept). */
  get(user: NotificationsUser, now: Date): Promise<Notifications>;
  /**
   * Sets what the person wants, as `PUT /api/notifications` says (docs/notifications.md): off at
   * once; on at once at the confirmed address (a consent recorded), else by a confirmation
   * e-mail queued in the same transaction.
   */
  put(user: NotificationsUser, input: NotificationsInput, now: Date): Promise<PutOutcome>;
  /** Uses a confirmation link's token: the address and choices it names become the person's. */
  confirm(token: string, now: Date): Promise<'done' | 'invalid'>;
  /** One-click unsubscribe: that kind of e-mail stops at once; 'confirmation' withdraws the ask. */
  unsubscribe(kind: MailKind, token: string, now: Date): Promise<'done' | 'invalid'>;
}

/** One lock for every write of these tables: the address's limit spans people. */
export const notificationsLock = 'mail subscribers';

const dayMs = 24 * 60 * 60 * 1000;
const hourMs = 60 * 60 * 1000;

/** A link's token: 256 random bits, base64url. */
function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** How a confirmation's token is kept: its SHA-256 in hex (the link is the only copy). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The same address, as people type it in any case. */
function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

const noChoices: Choices = { weekly_summary: false, client_alerts: false, review_digest: false };

function choicesOfRow(row: MailSubscribersTable | undefined): Choices {
  if (row === undefined) return noChoices;
  return {
    weekly_summary: row.weekly_summary === 1,
    client_alerts: row.client_alerts === 1,
    review_digest: row.review_digest === 1,
  };
}

function choicesOfJson(json: string): Choices {
  const parsed = JSON.parse(json) as Partial<Choices>;
  return Object.fromEntries(
    notificationChoices.map((choice) => [choice, parsed[choice] === true]),
  ) as Choices;
}

const onOf = (choices: Choices): NotificationChoice[] =>
  notificationChoices.filter((choice) => choices[choice]);

const columnsOf = (choices: Choices) => ({
  weekly_summary: choices.weekly_summary ? 1 : 0,
  client_alerts: choices.client_alerts ? 1 : 0,
  review_digest: choices.review_digest ? 1 : 0,
});

interface State {
  subscriber: MailSubscribersTable | undefined;
  /** The person's confirmation awaiting use (one at most: a new one voids the others). */
  pending: MailConfirmationsTable | undefined;
}

async function stateOf(db: Kysely<Tables>, subject: string, now: Date): Promise<State> {
  const subscriber = await db
    .selectFrom('mail_subscribers')
    .selectAll()
    .where('subject', '=', subject)
    .executeTakeFirst();
  const pending = await db
    .selectFrom('mail_confirmations')
    .selectAll()
    .where('subject', '=', subject)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return { subscriber, pending };
}

/** What GET answers: what the person asked for, and where it is or would be sent. */
function answerOf(state: State, user: NotificationsUser): Notifications {
  const offered = choicesFor[user.audience];
  const asked =
    state.pending === undefined
      ? choicesOfRow(state.subscriber)
      : choicesOfJson(state.pending.choices);
  const confirmedEmail = state.subscriber?.email ?? null;
  const email = state.pending?.email ?? confirmedEmail ?? user.email ?? null;
  return {
    weekly_summary: asked.weekly_summary && offered.includes('weekly_summary'),
    client_alerts: asked.client_alerts && offered.includes('client_alerts'),
    review_digest: asked.review_digest && offered.includes('review_digest'),
    email,
    confirmed: email !== null && confirmedEmail !== null && sameAddress(email, confirmedEmail),
    confirmation_sent: state.pending !== undefined,
    offered: [...offered],
  };
}

/** What a put does, decided from the state before it (the same decision twice is the same). */
type Decision =
  | { kind: 'not_offered' | 'no_address' }
  | {
      kind: 'write';
      /** What the person wants after the put. */
      wanted: Choices;
      /** The subscriber's choices after it: what may be sent. */
      kept: Choices;
      /** The subscriber's confirmed address after it. */
      email: string | null;
      /**
       * at_confirmed: the address is the confirmed one, the choices set there at once;
       * pending: a confirmation of that address awaits use (it takes the choices wanted);
       * confirm: a new confirmation e-mail to `address`; none: nothing wanted.
       */
      step: 'at_confirmed' | 'pending' | 'confirm' | 'none';
      address: string | null;
    };

function decide(state: State, user: NotificationsUser, input: NotificationsInput): Decision {
  const offered = choicesFor[user.audience];
  if (notificationChoices.some((choice) => input[choice] === true && !offered.includes(choice))) {
    return { kind: 'not_offered' };
  }
  const current = choicesOfRow(state.subscriber);
  const asked = state.pending === undefined ? current : choicesOfJson(state.pending.choices);
  const wanted = Object.fromEntries(
    notificationChoices.map((choice) => [
      choice,
      offered.includes(choice) && (input[choice] ?? asked[choice]),
    ]),
  ) as Choices;
  // An empty address typed is none typed: the one known serves.
  const typed = input.email === undefined || input.email === '' ? undefined : input.email;
  const confirmedEmail = state.subscriber?.email ?? null;
  const address = typed ?? state.pending?.email ?? confirmedEmail ?? user.email ?? null;
  // Off at once; on only where it may be sent already.
  let kept = Object.fromEntries(
    notificationChoices.map((choice) => [choice, current[choice] && wanted[choice]]),
  ) as Choices;
  let step: 'at_confirmed' | 'pending' | 'confirm' | 'none';
  if (onOf(wanted).length === 0) {
    step = 'none';
  } else if (address === null) {
    return { kind: 'no_address' };
  } else if (confirmedEmail !== null && sameAddress(address, confirmedEmail)) {
    step = 'at_confirmed';
    kept = wanted;
  } else if (state.pending !== undefined && sameAddress(state.pending.email, address)) {
    step = 'pending';
  } else {
    step = 'confirm';
  }
  // Every e-mail stopped: the address is not kept (a programme role's is held nowhere else).
  const email = onOf(kept).length === 0 ? null : confirmedEmail;
  return { kind: 'write', wanted, kept, email, step, address };
}

/** A confirmation to make: its token and its e-mail, composed before the transaction. */
interface Prepared {
  token: string;
  address: string;
  wanted: Choices;
  unsubscribeToken: string;
  composed: ComposedMail;
}

export function createNotifications(database: Database, links: MailLinks): NotificationsStore {
  const { db } = database;

  const compose = (token: string, address: string, wanted: Choices, unsubscribeToken: string) =>
    composeConfirmation(
      {
        email: address,
        choices: onOf(wanted),
        confirmUrl: links.confirm(token),
        unsubscribeUrl: links.unsubscribe('confirmation', unsubscribeToken),
      },
      links.brand,
    );

  /** Whether another confirmation e-mail may go now: to the person, and to the address. */
  async function withinLimits(trx: Kysely<Tables>, subject: string, address: string, now: Date) {
    const ofPerson = await trx
      .selectFrom('mail_confirmations')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('subject', '=', subject)
      .where('created_at', '>', new Date(now.getTime() - dayMs).toISOString())
      .executeTakeFirstOrThrow();
    if (Number(ofPerson.count) >= confirmationsPerDay) return false;
    const ofAddress = await trx
      .selectFrom('mail_confirmations')
      .select('token_hash')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', address.toLowerCase()))
      .where('created_at', '>', new Date(now.getTime() - hourMs).toISOString())
      .limit(1)
      .executeTakeFirst();
    return ofAddress === undefined;
  }

  /** Voids the person's confirmations awaiting use (but `except`): they expire now. */
  async function voidPending(trx: Kysely<Tables>, subject: string, now: Date, except?: string) {
    const at = now.toISOString();
    let update = trx
      .updateTable('mail_confirmations')
      .set({ expires_at: at })
      .where('subject', '=', subject)
      .where('used_at', 'is', null)
      .where('expires_at', '>', at);
    if (except !== undefined) update = update.where('token_hash', '<>', except);
    await update.execute();
  }

  async function put(
    trx: Kysely<Tables>,
    user: NotificationsUser,
    input: NotificationsInput,
    now: Date,
    prepared: Prepared | undefined,
  ): Promise<PutOutcome> {
    const state = await stateOf(trx, user.subject, now);
    const decision = decide(state, user, input);
    if (decision.kind !== 'write') return decision;
    const { wanted, kept, email, step, address } = decision;
    const at = now.toISOString();
    if (step === 'confirm' && !(await withinLimits(trx, user.subject, address!, now))) {
      return { kind: 'limited' };
    }
    if (state.subscriber === undefined && step === 'none' && state.pending === undefined) {
      return { kind: 'done', notifications: answerOf(state, user) };
    }
    const unsubscribeToken = state.subscriber?.unsubscribe_token ?? newToken();
    if (state.subscriber === undefined) {
      await trx
        .insertInto('mail_subscribers')
        .values({
          subject: user.subject,
          audience: user.audience,
          email: null,
          confirmed_at: null,
          ...columnsOf(noChoices),
          unsubscribe_token: unsubscribeToken,
          updated_at: at,
        })
        .execute();
    }
    const newlyOn = onOf(kept).some((choice) => !choicesOfRow(state.subscriber)[choice]);
    await trx
      .updateTable('mail_subscribers')
      .set({
        audience: user.audience,
        email,
        confirmed_at: email === null ? null : (state.subscriber?.confirmed_at ?? null),
        ...columnsOf(kept),
        updated_at: at,
      })
      .where('subject', '=', user.subject)
      .execute();
    if (step === 'at_confirmed' && newlyOn) {
      // Asked for at an address already confirmed: consented now, as a confirmation would.
      await trx
        .insertInto('mail_consents')
        .values({
          id: randomUUID(),
          subject: user.subject,
          email: email!,
          choices: JSON.stringify(wanted),
          text_version: notificationsTextVersion,
          consented_at: at,
        })
        .execute();
    }
    if (step === 'pending') {
      // The link proves the address; it confirms what the person asks for on the page when it
      // is used, as a page's choices are ticked one at a time: one e-mail for them all.
      await trx
        .updateTable('mail_confirmations')
        .set({ choices: JSON.stringify(wanted) })
        .where('token_hash', '=', state.pending!.token_hash)
        .execute();
    } else {
      await voidPending(trx, user.subject, now);
    }
    if (step === 'confirm') {
      // Composed before the transaction when it could be foreseen; again if it changed since.
      const fits =
        prepared !== undefined &&
        sameAddress(prepared.address, address!) &&
        prepared.unsubscribeToken === unsubscribeToken &&
        notificationChoices.every((choice) => prepared.wanted[choice] === wanted[choice]);
      const token = fits ? prepared.token : newToken();
      const composed = fits
        ? prepared.composed
        : await compose(token, address!, wanted, unsubscribeToken);
      const hash = tokenHash(token);
      await trx
        .insertInto('mail_confirmations')
        .values({
          token_hash: hash,
          subject: user.subject,
          email: address!,
          choices: JSON.stringify(wanted),
          text_version: notificationsTextVersion,
          created_at: at,
          expires_at: new Date(now.getTime() + confirmationDays * dayMs).toISOString(),
          used_at: null,
        })
        .execute();
      await queueMail(
        trx,
        {
          kind: 'confirmation',
          to: address!,
          dedupeKey: hash,
          ...composed,
          headers: unsubscribeHeaders(links, 'confirmation', unsubscribeToken),
        },
        now,
      );
    }
    return { kind: 'done', notifications: answerOf(await stateOf(trx, user.subject, now), user) };
  }

  return {
    get: (user, now) =>
      guarded(database, async () => answerOf(await stateOf(db, user.subject, now), user)),

    put: (user, input, now) =>
      guarded(database, async () => {
        // The e-mail is composed outside the transaction, which holds SQLite's one writer.
        const before = decide(await stateOf(db, user.subject, now), user, input);
        let prepared: Prepared | undefined;
        if (before.kind === 'write' && before.step === 'confirm') {
          const subscriber = await db
            .selectFrom('mail_subscribers')
            .select('unsubscribe_token')
            .where('subject', '=', user.subject)
            .executeTakeFirst();
          const token = newToken();
          const unsubscribeToken = subscriber?.unsubscribe_token ?? newToken();
          prepared = {
            token,
            address: before.address!,
            wanted: before.wanted,
            unsubscribeToken,
            composed: await compose(token, before.address!, before.wanted, unsubscribeToken),
          };
        }
        return writeTransaction(database, [notificationsLock], (trx) =>
          put(trx, user, input, now, prepared),
        );
      }),

    confirm: (token, now) =>
      guarded(database, async () => {
        // A made-up token costs a read, never a turn of the write lock.
        const known = await db
          .selectFrom('mail_confirmations')
          .select('token_hash')
          .where('token_hash', '=', tokenHash(token))
          .executeTakeFirst();
        if (known === undefined) return 'invalid';
        return writeTransaction(database, [notificationsLock], async (trx) => {
          const at = now.toISOString();
          const confirmation = await trx
            .selectFrom('mail_confirmations')
            .selectAll()
            .where('token_hash', '=', tokenHash(token))
            .where('used_at', 'is', null)
            .where('expires_at', '>', at)
            .executeTakeFirst();
          if (confirmation === undefined) return 'invalid';
          const choices = choicesOfJson(confirmation.choices);
          const { numUpdatedRows } = await trx
            .updateTable('mail_subscribers')
            .set({
              email: confirmation.email,
              confirmed_at: at,
              ...columnsOf(choices),
              updated_at: at,
            })
            .where('subject', '=', confirmation.subject)
            .executeTakeFirst();
          // The person was erased since (their confirmations with them): nothing to confirm.
          if (numUpdatedRows === 0n) return 'invalid';
          await trx
            .updateTable('mail_confirmations')
            .set({ used_at: at })
            .where('token_hash', '=', confirmation.token_hash)
            .execute();
          await trx
            .insertInto('mail_consents')
            .values({
              id: randomUUID(),
              subject: confirmation.subject,
              email: confirmation.email,
              choices: confirmation.choices,
              text_version: confirmation.text_version,
              consented_at: at,
            })
            .execute();
          await voidPending(trx, confirmation.subject, now, confirmation.token_hash);
          return 'done';
        });
      }),

    unsubscribe: (kind, token, now) =>
      guarded(database, async () => {
        const known = await db
          .selectFrom('mail_subscribers')
          .select('subject')
          .where('unsubscribe_token', '=', token)
          .executeTakeFirst();
        if (known === undefined) return 'invalid';
        return writeTransaction(database, [notificationsLock], async (trx) => {
          const subscriber = await trx
            .selectFrom('mail_subscribers')
            .selectAll()
            .where('unsubscribe_token', '=', token)
            .executeTakeFirst();
          if (subscriber === undefined) return 'invalid';
          if (kind === 'confirmation') {
            await voidPending(trx, subscriber.subject, now);
            return 'done';
          }
          const choice = choiceOfKind[kind];
          const kept = { ...choicesOfRow(subscriber), [choice]: false };
          const stopped = onOf(kept).length === 0;
          await trx
            .updateTable('mail_subscribers')
            .set({
              ...columnsOf(kept),
              ...(stopped && { email: null, confirmed_at: null }),
              updated_at: now.toISOString(),
            })
            .where('subject', '=', subscriber.subject)
            .execute();
          // Stopped means stopped: a confirmation awaiting use no longer asks for it either.
          const { pending } = await stateOf(trx, subscriber.subject, now);
          if (pending !== undefined) {
            const asked = { ...choicesOfJson(pending.choices), [choice]: false };
            if (onOf(asked).length === 0) await voidPending(trx, subscriber.subject, now);
            else {
              await trx
                .updateTable('mail_confirmations')
                .set({ choices: JSON.stringify(asked) })
                .where('token_hash', '=', pending.token_hash)
                .execute();
            }
          }
          return 'done';
        });
      }),
  };
}
