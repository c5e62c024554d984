import type { FastifyBaseLogger } from 'fastify';
import { createTransport, type NodemailerError } from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import { describeError } from '../db/database';
import type { MailConfig } from '../env';
import type { DueMail, MailOutbox } from './mail-outbox';

export type MailAttemptResult = 'sent' | 'retry' | 'failed';

export interface MailSenderOptions {
  outbox: MailOutbox;
  config: MailConfig;
  log: FastifyBaseLogger;
  /** The app's clock: when e-mails are due and when the next attempt is. */
  now: () => Date;
  /** How often the outbox is asked for due e-mails while none is waiting. */
  pollMs?: number;
  /** E-mails sent at once, at most. */
  batchSize?: number;
  /** Hears of each attempt's result (metrics). */
  onAttempt?: (result: MailAttemptResult) => void;
}

export interface MailSender {
  /** Stops claiming, and waits for the attempts in flight to be recorded. */
  stop(): Promise<void>;
}

// An attempt ends within about 50 s (the transport's time-outs below); the lease is longer, so
// that in a normal run no other instance takes an e-mail that is being sent.
const leaseMs = 120_000;

/**
 * Sends the outbox's e-mails through the relay in the background, so that whatever queued one
 * never waits for it: the loop claims due e-mails, nodemailer sends each, the relay's acceptance
 * settles it, a 5xx refusal fails it, anything else (the relay down, a 4xx) is tried again after
 * the next delay of the schedule, until the schedule ends and it is failed.
 */
export function startMailSender({
  outbox,
  config,
  log,
  now,
  pollMs = 1_000,
  batchSize = 10,
  onAttempt = () => {},
}: MailSenderOptions): MailSender {
  // A URL carries it all: smtp:// is upgraded with STARTTLS when the relay offers it, smtps:// is
  // TLS from the start, and the user and password are the relay's login.
  const transport = createTransport({
    url: config.url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  const domain = addressparser(config.from, { flatten: true })[0]!.address.split('@')[1]!;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | undefined;

  function wake(delayMs: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      pumping = pump().finally(() => {
        pumping = undefined;
        wake(pollMs);
      });
    }, delayMs);
  }

  async function pump() {
    while (!stopped) {
      const at = now();
      let due: DueMail[];
      try {
        due = await outbox.claim(batchSize, at, new Date(at.getTime() + leaseMs), domain);
      } catch (error) {
        log.warn({ err: error }, 'e-mail: could not read the outbox; trying again');
        return;
      }
      if (stopped) {
        await outbox.release(due.map(({ id }) => id)).catch(() => {});
        return;
      }
      await Promise.all(due.map(send));
      // A full claim means more may be waiting; otherwise the outbox is asked again later.
      if (due.length < batchSize) return;
    }
  }

  async function send(mail: DueMail) {
    let error: NodemailerError | undefined;
    try {
      await transport.sendMail({
        from: config.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
        headers: { ...mail.headers, 'Feedback-ID': `${mail.kind}:tasjeel` },
      });
    } catch (caught) {
      error = caught as NodemailerError;
    }
    const attempts = mail.attempts + 1;
    const at = now();
    // Logged by id and the relay's codes: its message may name the recipient.
    const about = { mail: mail.id, kind: mail.kind, attempts };
    try {
      if (error === undefined) {
        onAttempt('sent');
        return await outbox.settle(mail.id, {
          status: 'sent',
          attempts,
          nextAttemptAt: at,
          sentAt: at,
          lastError: null,
        });
      }
      const lastError = error.response ?? describeError(error);
      const codes = { code: error.code, responseCode: error.responseCode };
      const delayMs = config.retryDelaysMs[attempts - 1];
      // A login the relay refuses (535) is this server's to fix, not the e-mail's: retried.
      if (delayMs === undefined || (error.permanent === true && error.code !== 'EAUTH')) {
        onAttempt('failed');
        log.warn(
          { ...about, ...codes },
          'e-mail: the relay refused it, or it ran out of retries; failed',
        );
        return await outbox.settle(mail.id, {
          status: 'failed',
          attempts,
          nextAttemptAt: at,
          sentAt: null,
          lastError,
        });
      }
      // Jitter spreads out the retries of e-mails that failed together; it only shortens a
      // wait, so the schedule's bounds hold (every 30 s for the first ten minutes).
      const nextAttemptAt = new Date(at.getTime() + delayMs * (0.9 + Math.random() * 0.1));
      onAttempt('retry');
      log.warn(
        { ...about, ...codes, nextAttemptAt: nextAttemptAt.toISOString() },
        'e-mail: the relay did not take it; trying again later',
      );
      await outbox.settle(mail.id, {
        status: 'pending',
        attempts,
        nextAttemptAt,
        sentAt: null,
        lastError,
      });
    } catch (recordError) {
      // The claim's lease runs out and the e-mail is sent again, with the same Message-ID.
      log.warn({ err: recordError, mail: mail.id }, 'e-mail: could not record an attempt');
    }
  }

  wake(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pumping;
      transport.close();
    },
  };
}
