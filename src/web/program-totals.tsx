import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram } from '../domain/catalogue/program';
import { conversion } from '../domain/conversion';
import type { ProgramTotals } from '../domain/program-stats';
import { formatConversion, formatNumber, formatRate } from '../domain/stats-format';
import { ConversionTotal, Total } from './stats-total';
import { TotalChange } from './total-change';

/** A conversion as a rate, or none where it is not one (no visitors, or leads past them). */
function conversionRate(numbers: ProgramTotals): number | null {
  const shown = conversion(numbers);
  return shown.kind === 'rate' ? shown.percent : null;
}

/** A count of the totals, with the previous period's beside it and the change. */
function CountTotal({
  label,
  count,
  previous,
}: {
  label: string;
  count: number;
  previous: number;
}) {
  return (
    <Total label={label} value={formatNumber(count)}>
      <TotalChange current={count} previous={previous} shown={formatNumber(previous)} />
    </Total>
  );
}

/** A period's totals, each beside the previous period's (the programme's and a marketer's). */
export function ProgramTotalsList({
  totals,
  previous,
}: {
  totals: ProgramTotals;
  previous: ProgramTotals;
}) {
  const counts = [
    [arStats.statVisits, 'visits'],
    [arStats.statUniqueVisitors, 'unique_visitors'],
    [arStats.statSignUps, 'leads'],
    [arProgram.statContacted, 'contacted'],
    [arProgram.statQualified, 'qualified'],
    [arStats.statClients, 'clients'],
    [arProgram.statLost, 'lost'],
  ] as const;
  return (
    <dl className="totals">
      {counts.map(([label, key]) => (
        <CountTotal key={key} label={label} count={totals[key]} previous={previous[key]} />
      ))}
      <ConversionTotal numbers={totals}>
        <TotalChange
          current={conversionRate(totals)}
          previous={conversionRate(previous)}
          shown={formatConversion(previous)}
        />
      </ConversionTotal>
      <Total label={arStats.statClientRate} value={formatRate(totals.client_percent)}>
        <TotalChange
          current={totals.client_percent}
          previous={previous.client_percent}
          shown={formatRate(previous.client_percent)}
        />
      </Total>
      <CountTotal
        label={arProgram.statFlagged}
        count={totals.flagged}
        previous={previous.flagged}
      />
      <CountTotal
        label={arStats.statNotCredited}
        count={totals.not_credited}
        previous={previous.not_credited}
      />
    </dl>
  );
}
