import { statsPeriods } from '../domain/marketer-stats';
import { rangeRefusal, type ProgramPeriod, type RangeRefusal } from '../domain/program-stats';

/** Today's UTC day, the last a period may show (the API's days are UTC). */
export const utcToday = () => new Date().toISOString().slice(0, 10);

/**
 * The period a page's address names (`?days=7`, or `?from=…&to=…` as sent by a colleague): one of
 * the four, or a range as given, which rangeRefusal then judges; none for anything else.
 */
export function periodOfAddress(search: string): ProgramPeriod | undefined {
  const query = new URLSearchParams(search);
  const [from, to, days] = [query.getAll('from'), query.getAll('to'), query.getAll('days')];
  if (from.length === 1 && to.length === 1 && days.length === 0) {
    return { from: from[0]!, to: to[0]! };
  }
  if (from.length > 0 || to.length > 0 || days.length !== 1) return undefined;
  const named = statsPeriods.find((period) => String(period) === days[0]);
  return named === undefined ? undefined : { days: named };
}

/**
 * The period the page opens with: its address's, unless that names none (30 days) or a range
 * that cannot be shown (30 days too, the range's dates offered again with why).
 */
export function firstPeriod(
  search: string,
  today: string,
): { period: ProgramPeriod; refused?: { from: string; to: string; refusal: RangeRefusal } } {
  const asked = periodOfAddress(search);
  if (asked === undefined) return { period: { days: 30 } };
  if ('days' in asked) return { period: asked };
  const refusal = rangeRefusal(asked.from, asked.to, today);
  return refusal === undefined
    ? { period: asked }
    : { period: { days: 30 }, refused: { ...asked, refusal } };
}
