import { setMaxListeners } from 'node:events';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { describeError } from '../db/database';
import type { WebhookConfig } from '../env';
import type { DueEvent } from './outbox';

/** An attempt's outcome: a 2xx, anything else (410 Gone told apart), or stopped midway. */
export type Attempt =
  { ok: true } | { ok: false; gone: boolean; error: string } | { aborted: true };

export interface Transport {
  /** Signs and POSTs the event (Standard Webhooks); never throws. */
  send(event: DueEvent): Promise<Attempt>;
  /** Aborts the requests in flight (their attempts end `aborted`) and closes the sockets. */
  close(): void;
}

/**
 * node:http rather than fetch: fetch cost about 1 ms of the event loop per request here, which
 * at 200 sign-ups a second left the webhooks seconds behind. It follows no redirect (one could
 * carry the personal data to another host: a 3xx is a failed attempt).
 */
export function createTransport(config: WebhookConfig, maxInFlight: number): Transport {
  const webhooks = config.secrets.map((secret) => new Webhook(secret));
  const url = new URL(config.url);
  const secure = url.protocol === 'https:';
  const agent = new (secure ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: maxInFlight });
  const request = secure ? httpsRequest : httpRequest;
  const stopping = new AbortController();
  // Each request in flight listens to it.
  setMaxListeners(maxInFlight + 1, stopping.signal);

  /** POSTs `body`; resolves with the status, rejects on no answer in time or a broken connection. */
  function post(body: string, headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
      const sent = request(url, {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        signal: stopping.signal,
      });
      const deadline = setTimeout(
        () => sent.destroy(new Error(`no answer within ${config.timeoutMs} ms`)),
        config.timeoutMs,
      );
      sent.on('response', (response) => {
        clearTimeout(deadline);
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      sent.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      sent.end(body);
    });
  }

  return {
    async send(event) {
      const body = JSON.stringify(event.payload);
      const sentAt = new Date();
      try {
        const status = await post(body, {
          'content-type': 'application/json',
          'user-agent': 'Tasjeel-Webhooks',
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          // One signature per secret, space-separated (Standard Webhooks): while the secret is
          // rotated, a receiver holding either one verifies the delivery.
          'webhook-signature': webhooks
            .map((webhook) => webhook.sign(event.id, sentAt, body))
            .join(' '),
        });
        if (status >= 200 && status < 300) return { ok: true };
        return { ok: false, gone: status === 410, error: `HTTP ${status}` };
      } catch (error) {
        if (stopping.signal.aborted) return { aborted: true };
        return { ok: false, gone: false, error: describeError(error) };
      }
    },
    close() {
      stopping.abort();
      agent.destroy();
    },
  };
}
