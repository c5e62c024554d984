/**
 * Conversion: leads per hundred unique visitors (docs/program.md), as the numbers' answers count
 * it and as every page and file shows it.
 */

/** A part per hundred of a whole, one decimal; null when the whole is none. */
export function percent(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 1000) / 10;
}

/**
 * What a conversion is to a reader. A lead needs no counted visit: the platform may send it
 * through the API, and several people behind one address are not all counted as visitors. So
 * leads may outnumber the visitors, and a figure above 100 % would read as a conversion better
 * than every visitor signing up: that case is said in words instead (`more_leads`). A group
 * with neither visitors nor leads has none (`none`).
 */
export type Conversion =
  { kind: 'rate'; percent: number } | { kind: 'more_leads' } | { kind: 'none' };

/** The one rule of how a group's conversion is shown, from its leads and unique visitors. */
export function conversion(numbers: { leads: number; unique_visitors: number }): Conversion {
  const { leads, unique_visitors: visitors } = numbers;
  if (leads > visitors) return { kind: 'more_leads' };
  const rate = percent(leads, visitors);
  return rate === null ? { kind: 'none' } : { kind: 'rate', percent: rate };
}
