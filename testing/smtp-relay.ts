import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** An e-mail as the relay got it: parsed as a mail client would, and to whom it was sent. */
export interface RelayedMail {
  mail: ParsedMail;
  /** The envelope's recipients (RCPT TO). */
  to: string[];
  messageId: string;
}

/** What the relay answers to the n-th attempt (from 1) of an e-mail: 250, or a 4xx or 5xx. */
export type RelayAnswer = (mail: RelayedMail, n: number) => number;

export interface TestRelay {
  port: number;
  /** An SMTP_URL for it, with a user and password it records. */
  url: string;
  /** Every e-mail it accepted, in order of arrival. */
  accepted: RelayedMail[];
  /** Every e-mail it was sent, refused ones included. */
  attempts: RelayedMail[];
  /** The user and password of each login. */
  logins: { username: string; password: string }[];
  close(): Promise<void>;
}

/**
 * A provider's SMTP relay on the loopback address, as the `smtp-server` package serves one:
 * plain SMTP with a login (no STARTTLS, which nodemailer would otherwise take and then refuse
 * the relay's self-signed certificate).
 */
export async function startSmtpRelay(
  answer: RelayAnswer = () => 250,
  /** 0 for any free one; a given port lets a test bring a relay that was down up. */
  port = 0,
): Promise<TestRelay> {
  const accepted: RelayedMail[] = [];
  const attempts: RelayedMail[] = [];
  const logins: TestRelay['logins'] = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const relayed = {
            mail,
            to: session.envelope.rcptTo.map(({ address }) => address),
            messageId: `<${mail.messageId ?? ''}>`.replace(/^<</, '<').replace(/>>$/, '>'),
          };
          attempts.push(relayed);
          const code = answer(
            relayed,
            attempts.filter(({ messageId }) => messageId === relayed.messageId).length,
          );
          if (code < 400) {
            accepted.push(relayed);
            callback();
            return;
          }
          callback(
            Object.assign(new Error(`${code} the test relay says no`), { responseCode: code }),
          );
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: listening } = server.server.address() as AddressInfo;
  return {
    port: listening,
    url: `smtp://tasjeel:relay-password@127.0.0.1:${listening}`,
    accepted,
    attempts,
    logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
