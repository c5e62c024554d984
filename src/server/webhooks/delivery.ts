import type { FastifyBaseLogger } from 'fastify';
import type { WebhookConfig } from '../env';
import { createEndpointHealth } from './endpoint-health';
import type { DueEvent, Outbox } from './outbox';
import { createTransport, type Attempt } from './transport';

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
  /** Hears of each attempt's result, with a delivered event's lag from its sign-up (metrics). */
  onAttempt?: (result: 'delivered' | 'failed' | 'gone', lagSeconds?: number) => void;
}

export interface Delivery {
  /** Stops claiming, aborts the deliveries in flight and hands their events back. */
  stop(): Promise<void>;
}

/** The longest pause between two probes of an endpoint that is down. */
const maxPauseMs = 60_000;
// The slots that free up within a few ms are filled by one claim.
const claimDelayMs = 5;

/**
 * Delivers the outbox's events in the background, so that a sign-up never waits for the
 * endpoint: the polling loop claims due events, the transport signs and POSTs each, a 2xx
 * settles it, anything else is tried again after the next delay of the schedule, until the
 * schedule ends and it is failed. While the endpoint is down (endpoint-health.ts) one event at
 * a time probes it; the events left waiting keep their attempts.
 */
export function startDelivery({
  outbox,
  config,
  log,
  now,
  pollMs = 100,
  maxInFlight = 64,
  onAttempt = () => {},
}: DeliveryOptions): Delivery {
  const transport = createTransport(config, maxInFlight);
  const health = createEndpointHealth({
    firstPauseMs: config.retryDelaysMs[0] ?? maxPauseMs,
    maxPauseMs,
  });
  // Long enough that an attempt, its time-out included, ends before another instance may take
  // the event: in a normal run nothing is sent twice.
  const leaseMs = config.timeoutMs + 5_000;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let gone = false;
  let timer: NodeJS.Timeout | undefined;
  let timerDue = Infinity;
  let pumping: Promise<void> | undefined;

  // Asks the outbox again after `delayMs`, unless it is to be asked sooner already.
  function wake(delayMs: number) {
    if (stopped || gone) return;
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
    const state = health.now();
    if (state.kind === 'paused') return wake(Math.max(state.forMs, pollMs));
    const probing = state.kind === 'probe';
    if (probing && inFlight.size > 0) return wake(pollMs);
    const free = probing ? 1 : maxInFlight - inFlight.size;
    let claimed: DueEvent[] = [];
    if (free > 0) {
      const at = now();
      try {
        claimed = await outbox.claim(free, at, new Date(at.getTime() + leaseMs));
      } catch (error) {
        log.warn({ err: error }, 'webhooks: could not read the outbox; trying again');
      }
    }
    if (stopped) {
      await outbox.release(claimed.map(({ id }) => id)).catch(() => {});
      return;
    }
    for (const event of claimed) {
      const delivery = deliver(event, probing).finally(() => {
        inFlight.delete(delivery);
        wake(claimDelayMs);
      });
      inFlight.add(delivery);
    }
    // A full claim means more may be waiting; otherwise the outbox is asked again later.
    if (!probing) wake(free > 0 && claimed.length === free ? 0 : pollMs);
    else if (claimed.length === 0) wake(pollMs);
  }

  /** Keeps the endpoint's health from an attempt's outcome, and says when it changes. */
  function heard(result: Exclude<Attempt, { aborted: true }>, probe: boolean) {
    if (!result.ok && result.gone) return;
    const change = health.heard(result.ok, probe);
    if (change?.kind === 'resumed') {
      log.info('webhooks: the endpoint answers again; deliveries resume');
    } else if (change?.kind === 'paused') {
      log.warn(
        { failures: change.failures, pauseMs: change.pauseMs },
        'webhooks: the endpoint seems down; deliveries pause, then one event tries it',
      );
    }
  }

  async function deliver(event: DueEvent, probe: boolean) {
    const result = await transport.send(event);
    try {
      if ('aborted' in result) return await outbox.release([event.id]);
      heard(result, probe);
      const attempts = event.attempts + 1;
      const at = now();
      if (result.ok) {
        onAttempt('delivered', (at.getTime() - Date.parse(event.createdAt)) / 1000);
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
      stopped = true;
      clearTimeout(timer);
      transport.close();
      await pumping;
      await Promise.allSettled(inFlight);
    },
  };
}
