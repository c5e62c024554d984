import { setMaxListeners } from 'node:events';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { FastifyBaseLogger } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { packageLabel } from '../../domain/packages';
import { describeError } from '../db/database';
import type { WebhookConfig } from '../env';
import { utmOf } from '../registrations/registration-repository';
import type { DueEvent, Outbox } from './outbox';

/** The body of a delivery (docs/webhooks.md): the event and the registration it is about. */
export function webhookPayload({ type, registration: row }: DueEvent) {
  return {
    type,
    timestamp: row.created_at,
    data: {
      id: row.id,
      created_at: row.created_at,
      name: row.name,
      email: row.email,
      phone: row.phone,
      notes: row.notes,
      marketing_id: row.marketing_id,
      package_key: row.package_key,
      package_label: row.package_key === null ? null : packageLabel(row.package_key),
      source: row.source,
      repeat_of: row.repeat_of,
      utm: utmOf(row),
    },
  };
}

export interface DeliveryOptions {
  outbox: Outbox;
  config: WebhookConfig;
  log: FastifyBaseLogger;
  /** The app's clock: when events are due and when the next attempt is. */
  now: () => Date;
  /** How often the outbox is asked for due events while none is waiting. */
  pollMs?: number;
  /** Deliveries in flight at once, at most. */
  maxInFlight?: number;
  /**
   * Whether sign-ups are arriving faster than they are answered one by one: deliveries then go
   * one a poll, and catch up once the burst has passed.
   */
  busy?: () => boolean;
  /** Hears of each attempt's result, with a delivered event's lag from its sign-up (metrics). */
  onAttempt?: (result: 'delivered' | 'failed' | 'gone', lagSeconds?: number) => void;
}

export interface Delivery {
  /** Stops claiming, aborts the deliveries in flight and hands their events back. */
  stop(): Promise<void>;
}

type Attempt = { ok: true } | { ok: false; gone: boolean; error: string } | { aborted: true };

/** Failed attempts in a row, over any events, after which the endpoint is taken to be down. */
const failuresToPause = 10;
/** The longest pause between two probes of an endpoint that is down. */
const maxPauseMs = 60_000;

/**
 * Delivers the outbox's events in the background, so that a sign-up never waits for the
 * endpoint: each due event is claimed, signed and POSTed; a 2xx settles it, anything else is
 * tried again after the next delay of the schedule, until the schedule ends and it is failed.
 *
 * An endpoint that fails `failuresToPause` attempts in a row is down: rather than send it every
 * due event (at the sign-ups' rate, and their cost), deliveries pause, first for the schedule's
 * first delay, then one event at a time probes it, the pause doubling up to `maxPauseMs` while
 * the probe fails. The events left waiting keep their attempts, so an outage spends no event's
 * schedule but the probes'; the first answered probe lets all of them go.
 */
export function startDelivery({
  outbox,
  config,
  log,
  now,
  pollMs = 100,
  maxInFlight = 64,
  busy = () => false,
  onAttempt = () => {},
}: DeliveryOptions): Delivery {
  const webhook = new Webhook(config.secret);
  const url = new URL(config.url);
  const secure = url.protocol === 'https:';
  // node:http rather than fetch: fetch cost about 1 ms of the event loop per request here,
  // which at 200 sign-ups a second left the webhooks seconds behind. It follows no redirect
  // (one could carry the personal data to another host: a 3xx is a failed attempt).
  const agent = new (secure ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: maxInFlight });
  const send = secure ? httpsRequest : httpRequest;

  /** POSTs `body`; resolves with the status, rejects on no answer in time or a broken connection. */
  function post(body: string, headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = send(url, {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        signal: stopping.signal,
      });
      const deadline = setTimeout(
        () => request.destroy(new Error(`no answer within ${config.timeoutMs} ms`)),
        config.timeoutMs,
      );
      request.on('response', (response) => {
        clearTimeout(deadline);
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      request.end(body);
    });
  }
  // Long enough that an attempt, its time-out included, ends before another instance may take
  // the event: in a normal run nothing is sent twice.
  const leaseMs = config.timeoutMs + 5_000;
  const claimDelayMs = 5;
  const stopping = new AbortController();
  // Each request in flight listens to it.
  setMaxListeners(maxInFlight + 1, stopping.signal);
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let timerDue = Infinity;
  let pumping: Promise<void> | undefined;
  let gone = false;
  // The endpoint's health: failed attempts in a row, and the pause while it is down (0: up).
  let failures = 0;
  let pauseMs = 0;
  let resumeAt = 0;
  // While sign-ups crowd in, when the last event went out.
  let trickledAt = -Infinity;

  // Asks the outbox again after `delayMs`, unless it is to be asked sooner already.
  function wake(delayMs: number) {
    if (stopping.signal.aborted || gone) return;
    const due = performance.now() + delayMs;
    if (timer !== undefined && timerDue <= due) return;
    clearTimeout(timer);
    timerDue = due;
    timer = setTimeout(() => {
      timer = undefined;
      pumping ??= pump().finally(() => (pumping = undefined));
    }, delayMs);
  }

  async function pump() {
    if (gone) return;
    const probing = pauseMs > 0;
    if (probing && (performance.now() < resumeAt || inFlight.size > 0)) {
      wake(Math.max(resumeAt - performance.now(), pollMs));
      return;
    }
    // Sign-ups come first: a delivery's work on the event loop is time a waiting sign-up loses.
    const yielding = !probing && busy();
    if (yielding && (inFlight.size > 0 || performance.now() < trickledAt + pollMs)) {
      wake(Math.max(trickledAt + pollMs - performance.now(), claimDelayMs));
      return;
    }
    if (yielding) trickledAt = performance.now();
    const free = probing || yielding ? 1 : maxInFlight - inFlight.size;
    let claimed: DueEvent[] = [];
    if (free > 0) {
      const at = now();
      try {
        claimed = await outbox.claim(free, at, new Date(at.getTime() + leaseMs));
      } catch (error) {
        log.warn({ err: error }, 'webhooks: could not read the outbox; trying again');
      }
    }
    if (stopping.signal.aborted) {
      await outbox.release(claimed.map(({ id }) => id)).catch(() => {});
      return;
    }
    for (const event of claimed) {
      // The slots that free up within a few ms are filled by one claim.
      const delivery = deliver(event, probing).finally(() => {
        inFlight.delete(delivery);
        wake(claimDelayMs);
      });
      inFlight.add(delivery);
    }
    // A full claim means more may be waiting; otherwise the outbox is asked again later.
    if (!probing && !yielding) wake(free > 0 && claimed.length === free ? 0 : pollMs);
    else if (claimed.length === 0) wake(pollMs);
  }

  /** Keeps the endpoint's health: pauses deliveries once it is down, resumes when it answers. */
  function heard(answered: boolean, probe: boolean) {
    if (answered) {
      failures = 0;
      if (pauseMs > 0) log.info('webhooks: the endpoint answers again; deliveries resume');
      pauseMs = 0;
      return;
    }
    failures += 1;
    if (pauseMs === 0 && failures < failuresToPause) return;
    // Attempts already in flight when the pause began do not lengthen it; a failed probe does.
    if (pauseMs > 0 && !probe) return;
    pauseMs = Math.min(
      pauseMs === 0 ? (config.retryDelaysMs[0] ?? maxPauseMs) : pauseMs * 2,
      maxPauseMs,
    );
    resumeAt = performance.now() + pauseMs;
    log.warn(
      { failures, pauseMs },
      'webhooks: the endpoint seems down; deliveries pause, then one event tries it',
    );
  }

  async function attempt(event: DueEvent): Promise<Attempt> {
    const body = JSON.stringify(webhookPayload(event));
    const sentAt = new Date();
    try {
      const status = await post(body, {
        'content-type': 'application/json',
        'user-agent': 'Tasjeel-Webhooks',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': webhook.sign(event.id, sentAt, body),
      });
      if (status >= 200 && status < 300) return { ok: true };
      return { ok: false, gone: status === 410, error: `HTTP ${status}` };
    } catch (error) {
      if (stopping.signal.aborted) return { aborted: true };
      return { ok: false, gone: false, error: describeError(error) };
    }
  }

  async function deliver(event: DueEvent, probe: boolean) {
    const result = await attempt(event);
    try {
      if ('aborted' in result) return await outbox.release([event.id]);
      if (!('gone' in result && result.gone)) heard(result.ok, probe);
      const attempts = event.attempts + 1;
      const at = now();
      if (result.ok) {
        onAttempt('delivered', (at.getTime() - Date.parse(event.registration.created_at)) / 1000);
        return await outbox.settle(event.id, {
          status: 'delivered',
          attempts,
          nextAttemptAt: at,
          deliveredAt: at,
          lastError: null,
        });
      }
      const { error } = result;
      onAttempt(result.gone ? 'gone' : 'failed');
      if (result.gone) {
        gone = true;
        log.error(
          { event: event.id, error },
          'webhooks: the endpoint answered 410 Gone; no more deliveries until the server restarts (change WEBHOOK_URL)',
        );
        return await outbox.settle(event.id, {
          status: 'pending',
          attempts,
          nextAttemptAt: at,
          deliveredAt: null,
          lastError: error,
        });
      }
      const delayMs = config.retryDelaysMs[attempts - 1];
      if (delayMs === undefined) {
        log.warn({ event: event.id, attempts, error }, 'webhooks: attempt failed; event failed');
        return await outbox.settle(event.id, {
          status: 'failed',
          attempts,
          nextAttemptAt: at,
          deliveredAt: null,
          lastError: error,
        });
      }
      // Jitter (±10 %) spreads out the retries of events that failed together.
      const nextAttemptAt = new Date(at.getTime() + delayMs * (0.9 + Math.random() * 0.2));
      log.warn(
        { event: event.id, attempts, error, nextAttemptAt: nextAttemptAt.toISOString() },
        'webhooks: attempt failed; trying again later',
      );
      await outbox.settle(event.id, {
        status: 'pending',
        attempts,
        nextAttemptAt,
        deliveredAt: null,
        lastError: error,
      });
    } catch (error) {
      // The claim's lease runs out and the event is tried again: at least once.
      log.warn({ err: error, event: event.id }, 'webhooks: could not record an attempt');
    }
  }

  wake(0);
  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await pumping;
      await Promise.allSettled(inFlight);
      agent.destroy();
    },
  };
}
