import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A fresh Standard Webhooks secret, as an operator would make one. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface ReceivedEvent {
  /** The webhook-id header. */
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
  /** performance.now() on arrival. */
  at: number;
}

/**
 * What the receiver answers to its n-th request (from 1): a status, no answer at all, or a
 * status once the promise resolves (an endpoint that holds its requests until then).
 */
export type Answer = (request: IncomingMessage, n: number) => number | 'hang' | Promise<number>;

export interface WebhookReceiver {
  url: string;
  /** Every verified request, in order of arrival, repeats included. */
  received: ReceivedEvent[];
  /** Requests whose signature did not verify (answered 400). */
  rejected: () => number;
  /** Requests of any kind. */
  requests: () => number;
  /** From now on verifies with this secret alone, as a receiver does once it has rotated. */
  verifyWith(secret: string): void;
  /** Resolves once `count` verified requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A CRM's endpoint, as the docs tell one to write it: every request is verified with the
 * `standardwebhooks` library and the secret it is given.
 */
export async function startWebhookReceiver(
  secret: string,
  answer: Answer = () => 204,
  /** 0 for any free one; a given port lets a benchmark bring a down endpoint back. */
  port = 0,
): Promise<WebhookReceiver> {
  let webhook = new Webhook(secret);
  const received: ReceivedEvent[] = [];
  let rejected = 0;
  let requests = 0;
  const waiters = new Set<() => void>();
  const server = createServer(async (request, response) => {
    const n = ++requests;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const status = await answer(request, n);
    if (status === 'hang') return;
    let event: Omit<ReceivedEvent, 'id' | 'at'>;
    try {
      event = webhook.verify(body, request.headers as Record<string, string>) as typeof event;
    } catch {
      rejected += 1;
      response.writeHead(400).end();
      return;
    }
    if (status >= 200 && status < 300) {
      received.push({ ...event, id: String(request.headers['webhook-id']), at: performance.now() });
      for (const waiter of waiters) waiter();
    }
    response.writeHead(status, status === 302 ? { location: '/elsewhere' } : {}).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: listening } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${listening}/hooks`,
    received,
    rejected: () => rejected,
    requests: () => requests,
    verifyWith(next) {
      webhook = new Webhook(next);
    },
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${received.length} of ${count} webhooks arrived in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
