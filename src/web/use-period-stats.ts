import { useEffect, useState } from 'react';
import type { StatsPeriod } from '../domain/marketer-stats';
import { fetchWithToken } from './platform-token';

/**
 * A period's numbers as a page holds them; refused: the answer's status (401, 403, 404); error:
 * any other answer's status, none without an answer.
 */
export type PeriodStats<Stats> =
  | { kind: 'loading' }
  | { kind: 'stats'; stats: Stats }
  | { kind: 'error'; status?: number }
  | { kind: 'refused'; status: number };

const refusedStatuses = [401, 403, 404];

async function fetchPeriod<Stats>(
  path: string,
  storageKey: string,
  days: StatsPeriod,
  signal: AbortSignal,
): Promise<PeriodStats<Stats>> {
  const response = await fetchWithToken(`${path}?days=${days}`, storageKey, signal);
  if (refusedStatuses.includes(response.status))
    return { kind: 'refused', status: response.status };
  if (!response.ok) return { kind: 'error', status: response.status };
  return { kind: 'stats', stats: (await response.json()) as Stats };
}

/**
 * The numbers at `path` for the period chosen (30 days at first), with the platform's token:
 * fetched again for each period and each retry. Once refused, `loaded` stays refused: another
 * period would be refused too.
 */
export function usePeriodStats<Stats>(path: string, storageKey: string) {
  const [days, setDays] = useState<StatsPeriod>(30);
  const [attempt, setAttempt] = useState(0);
  // The answer and the request it answers: a newer request shows loading until its own.
  const request = `${days}:${attempt}`;
  const [answer, setAnswer] = useState<{ request: string; loaded: PeriodStats<Stats> }>();

  useEffect(() => {
    const controller = new AbortController();
    fetchPeriod<Stats>(path, storageKey, days, controller.signal).then(
      (loaded) => setAnswer({ request, loaded }),
      () => {
        if (!controller.signal.aborted) setAnswer({ request, loaded: { kind: 'error' } });
      },
    );
    return () => controller.abort();
  }, [path, storageKey, days, request]);

  const loaded: PeriodStats<Stats> =
    answer?.loaded.kind === 'refused' || answer?.request === request
      ? answer.loaded
      : { kind: 'loading' };
  return { days, setDays, loaded, retry: () => setAttempt((n) => n + 1) };
}
