import { useEffect, useState } from 'react';
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
  url: string,
  storageKey: string,
  signal: AbortSignal,
): Promise<PeriodStats<Stats>> {
  const response = await fetchWithToken(url, storageKey, signal);
  if (refusedStatuses.includes(response.status))
    return { kind: 'refused', status: response.status };
  if (!response.ok) return { kind: 'error', status: response.status };
  return { kind: 'stats', stats: (await response.json()) as Stats };
}

/**
 * The numbers at `path` for the period chosen (`first` at first), with the platform's token:
 * fetched again for each period and each retry, the period asked as `query` writes it. Once
 * refused, `loaded` stays refused: another period would be refused too.
 */
export function usePeriodStats<Stats, Period>(
  path: string,
  storageKey: string,
  first: Period,
  query: (period: Period) => string,
) {
  const [period, setPeriod] = useState<Period>(first);
  const [attempt, setAttempt] = useState(0);
  const url = `${path}${query(period)}`;
  // The answer and the request it answers: a newer request shows loading until its own.
  const request = `${url}:${attempt}`;
  const [answer, setAnswer] = useState<{ request: string; loaded: PeriodStats<Stats> }>();

  useEffect(() => {
    const controller = new AbortController();
    fetchPeriod<Stats>(url, storageKey, controller.signal).then(
      (loaded) => setAnswer({ request, loaded }),
      () => {
        if (!controller.signal.aborted) setAnswer({ request, loaded: { kind: 'error' } });
      },
    );
    return () => controller.abort();
  }, [url, storageKey, request]);

  const loaded: PeriodStats<Stats> =
    answer?.loaded.kind === 'refused' || answer?.request === request
      ? answer.loaded
      : { kind: 'loading' };
  return { period, setPeriod, loaded, retry: () => setAttempt((n) => n + 1) };
}
