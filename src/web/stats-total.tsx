import { arStats } from '../domain/catalogue/marketer-stats';
import { conversion } from '../domain/conversion';
import { formatConversion } from './stats-format';

/**
 * One figure of a period's totals, in their `<dl>`: its label and its value as shown (`words`:
 * a value said in words, in the size of text rather than of a figure).
 */
export function Total({ label, value, words }: { label: string; value: string; words?: boolean }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className={words ? 'words' : undefined}>{value}</dd>
    </div>
  );
}

/** The totals' conversion: a percentage, or the words of domain/conversion.ts's rule. */
export function ConversionTotal({
  numbers,
}: {
  numbers: { leads: number; unique_visitors: number };
}) {
  return (
    <Total
      label={arStats.statConversion}
      value={formatConversion(numbers)}
      words={conversion(numbers).kind === 'more_leads'}
    />
  );
}
