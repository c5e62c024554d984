import { useState, type FormEvent } from 'react';
import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram } from '../domain/catalogue/program';
import { statsPeriods } from '../domain/marketer-stats';
import {
  periodDays,
  periodQuery,
  rangeRefusal,
  type ProgramPeriod,
  type RangeRefusal,
} from '../domain/program-stats';
import { LoadFailure } from './load-failure';
import type { PeriodStats } from './use-period-stats';

const rangeChoice = 'range';

/**
 * The programme's period: the select of the four periods and a range of dates («فترة محددة»),
 * whose two dates are shown once the range is pressed; each period chosen is written into the
 * page's address (`?days=7`, `?from=…&to=…`), so that the address shows the same to whoever it
 * is sent to. Then the line that says the numbers are loading, or failed (a retry).
 */
export function ProgramPeriodControls({
  period,
  choose,
  loaded,
  retry,
  today,
  refused,
}: {
  period: ProgramPeriod;
  choose: (period: ProgramPeriod) => void;
  loaded: PeriodStats<unknown>;
  retry: () => void;
  today: string;
  refused?: { from: string; to: string; refusal: RangeRefusal };
}) {
  const [ranging, setRanging] = useState('from' in period || refused !== undefined);
  const [dates, setDates] = useState(
    refused === undefined ? periodDays(period, today) : { from: refused.from, to: refused.to },
  );
  const [refusal, setRefusal] = useState(refused?.refusal);

  function show(chosen: ProgramPeriod) {
    window.history.replaceState(window.history.state, '', periodQuery(chosen));
    choose(chosen);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const refused = rangeRefusal(dates.from, dates.to, today);
    setRefusal(refused);
    if (refused === undefined) show(dates);
  }

  const error = refusal === undefined ? undefined : 'range-error';
  return (
    <>
      <label htmlFor="period">{arStats.fieldPeriod}</label>
      <select
        id="period"
        value={ranging ? rangeChoice : String('days' in period ? period.days : rangeChoice)}
        onChange={(event) => {
          const days = statsPeriods.find((one) => String(one) === event.target.value);
          if (days === undefined) {
            setDates(periodDays(period, today));
            setRanging(true);
            return;
          }
          setRanging(false);
          setRefusal(undefined);
          show({ days });
        }}
      >
        {statsPeriods.map((days) => (
          <option key={days} value={days}>
            {arStats.statsPeriods[days]}
          </option>
        ))}
        <option value={rangeChoice}>{arProgram.periodRange}</option>
      </select>
      {ranging && (
        <form className="range" noValidate onSubmit={submit}>
          {(['from', 'to'] as const).map((end) => (
            <div key={end}>
              <label htmlFor={`range-${end}`}>
                {end === 'from' ? arProgram.rangeFrom : arProgram.rangeTo}
              </label>
              <input
                id={`range-${end}`}
                type="date"
                value={dates[end]}
                max={today}
                aria-invalid={error !== undefined}
                aria-describedby={error}
                onChange={(event) => setDates({ ...dates, [end]: event.target.value })}
              />
            </div>
          ))}
          <button type="submit" className="secondary">
            {arProgram.rangeShow}
          </button>
          {refusal !== undefined && (
            <p id={error} className="message error" role="alert">
              {arProgram.errorRange[refusal]}
            </p>
          )}
        </form>
      )}
      {loaded.kind === 'loading' && <p className="message">{arStats.statsLoading}</p>}
      {loaded.kind === 'error' && <LoadFailure status={loaded.status} retry={retry} />}
    </>
  );
}
