import { arStats } from '../domain/catalogue/marketer-stats';
import { statsPeriods, type StatsPeriod } from '../domain/marketer-stats';
import { LoadFailure } from './load-failure';
import type { PeriodStats } from './use-period-stats';

/** The period's select, then the line that says the numbers are loading, or failed (a retry). */
export function PeriodControls({
  days,
  setDays,
  loaded,
  retry,
}: {
  days: StatsPeriod;
  setDays: (days: StatsPeriod) => void;
  loaded: PeriodStats<unknown>;
  retry: () => void;
}) {
  return (
    <>
      <label htmlFor="period">{arStats.fieldPeriod}</label>
      <select
        id="period"
        value={days}
        onChange={(event) =>
          setDays(statsPeriods.find((period) => String(period) === event.target.value) ?? 30)
        }
      >
        {statsPeriods.map((period) => (
          <option key={period} value={period}>
            {arStats.statsPeriods[period]}
          </option>
        ))}
      </select>
      {loaded.kind === 'loading' && <p className="message">{arStats.statsLoading}</p>}
      {loaded.kind === 'error' && <LoadFailure status={loaded.status} retry={retry} />}
    </>
  );
}
