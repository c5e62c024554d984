import type { ReactNode } from 'react';
import { arStats } from '../domain/catalogue/marketer-stats';
import { conversion } from '../domain/conversion';
import { formatConversion } from '../domain/stats-format';

/**
 * One figure of a period's totals, in their `<dl>`: its label and its value as shown (`words`:
 * a value said in words, in the size of text rather than of a figure), and what `children` add
 * of it (another `<dd>`: the programme's comparison with the previous period).
 */
export function Total({
  label,
  value,
  words,
  children,
}: {
  label: string;
  value: string;
  words?: boolean;
  children?: ReactNode;
}) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className={words ? 'words' : undefined}>{value}</dd>
      {children}
    </div>
  );
}

/** The totals' conversion: a percentage, or the words of domain/conversion.ts's rule. */
export function ConversionTotal({
  numbers,
  children,
}: {
  numbers: { leads: number; unique_visitors: number };
  children?: ReactNode;
}) {
  return (
    <Total
      label={arStats.statConversion}
      value={formatConversion(numbers)}
      words={conversion(numbers).kind === 'more_leads'}
    >
      {children}
    </Total>
  );
}
