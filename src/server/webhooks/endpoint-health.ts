/** What the delivery may do now, by the endpoint's health. */
export type Health =
  /** Send every due event. */
  | { kind: 'up' }
  /** Send nothing for `forMs`: the endpoint seems down. */
  | { kind: 'paused'; forMs: number }
  /** Send one event, to learn whether the endpoint is back. */
  | { kind: 'probe' };

export interface EndpointHealth {
  now(): Health;
  /**
   * An attempt's outcome (a 410 Gone is neither). Returns what changed, for the log: the
   * endpoint came back, or deliveries pause (again) for `pauseMs`.
   */
  heard(
    answered: boolean,
    probe: boolean,
  ): { kind: 'resumed' } | { kind: 'paused'; pauseMs: number; failures: number } | undefined;
}

export interface HealthOptions {
  /** Failed attempts in a row, over any events, after which the endpoint is taken to be down. */
  failuresToPause?: number;
  /** The first pause (the schedule's first delay). */
  firstPauseMs: number;
  /** The longest pause between two probes. */
  maxPauseMs?: number;
  clock?: () => number;
}

/**
 * An endpoint that fails `failuresToPause` attempts in a row is down: rather than send it every
 * due event (at the sign-ups' rate, and their cost), deliveries pause, then one event at a time
 * probes it, the pause doubling up to `maxPauseMs` while the probe fails. The first answered
 * attempt lets every event go again.
 */
export function createEndpointHealth({
  failuresToPause = 10,
  firstPauseMs,
  maxPauseMs = 60_000,
  clock = Date.now,
}: HealthOptions): EndpointHealth {
  let failures = 0;
  // 0 while the endpoint is up.
  let pauseMs = 0;
  let resumeAt = 0;
  return {
    now() {
      if (pauseMs === 0) return { kind: 'up' };
      const left = resumeAt - clock();
      return left > 0 ? { kind: 'paused', forMs: left } : { kind: 'probe' };
    },
    heard(answered, probe) {
      if (answered) {
        failures = 0;
        const wasPaused = pauseMs > 0;
        pauseMs = 0;
        return wasPaused ? { kind: 'resumed' } : undefined;
      }
      failures += 1;
      if (pauseMs === 0 && failures < failuresToPause) return undefined;
      // Attempts already in flight when the pause began do not lengthen it; a failed probe does.
      if (pauseMs > 0 && !probe) return undefined;
      pauseMs = Math.min(pauseMs === 0 ? firstPauseMs : pauseMs * 2, maxPauseMs);
      resumeAt = clock() + pauseMs;
      return { kind: 'paused', pauseMs, failures };
    },
  };
}
