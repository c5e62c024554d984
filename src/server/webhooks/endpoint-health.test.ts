import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEndpointHealth } from './endpoint-health';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('an endpoint’s health', () => {
  it('stays up through fewer failures in a row than the limit, an answer clearing them', () => {
    const health = createEndpointHealth({ failuresToPause: 3, firstPauseMs: 1_000 });
    health.heard(false, false);
    health.heard(false, false);
    expect(health.heard(true, false)).toBeUndefined();
    health.heard(false, false);
    health.heard(false, false);
    expect(health.now()).toEqual({ kind: 'up' });
  });

  it('pauses at the limit, then lets one event probe once the pause is over', () => {
    const health = createEndpointHealth({ failuresToPause: 3, firstPauseMs: 1_000 });
    health.heard(false, false);
    health.heard(false, false);
    expect(health.heard(false, false)).toEqual({ kind: 'paused', pauseMs: 1_000, failures: 3 });
    expect(health.now()).toEqual({ kind: 'paused', forMs: 1_000 });
    vi.advanceTimersByTime(400);
    expect(health.now()).toEqual({ kind: 'paused', forMs: 600 });
    vi.advanceTimersByTime(600);
    expect(health.now()).toEqual({ kind: 'probe' });
  });

  it('doubles the pause at each failed probe up to the longest, not for attempts already in flight', () => {
    const health = createEndpointHealth({
      failuresToPause: 1,
      firstPauseMs: 1_000,
      maxPauseMs: 3_000,
    });
    health.heard(false, false);
    // An attempt sent before the pause fails too: the pause stays as it is.
    expect(health.heard(false, false)).toBeUndefined();
    vi.advanceTimersByTime(1_000);
    expect(health.heard(false, true)).toMatchObject({ kind: 'paused', pauseMs: 2_000 });
    vi.advanceTimersByTime(2_000);
    expect(health.heard(false, true)).toMatchObject({ kind: 'paused', pauseMs: 3_000 });
    vi.advanceTimersByTime(3_000);
    expect(health.heard(false, true)).toMatchObject({ kind: 'paused', pauseMs: 3_000 });
  });

  it('resumes at the first answer, and a later outage starts again from the first pause', () => {
    const health = createEndpointHealth({ failuresToPause: 1, firstPauseMs: 1_000 });
    health.heard(false, false);
    vi.advanceTimersByTime(1_000);
    health.heard(false, true);
    vi.advanceTimersByTime(2_000);
    expect(health.heard(true, true)).toEqual({ kind: 'resumed' });
    expect(health.now()).toEqual({ kind: 'up' });
    expect(health.heard(false, false)).toMatchObject({ kind: 'paused', pauseMs: 1_000 });
  });
});
