import { arStats } from './catalogue/marketer-stats';
import { conversion } from './conversion';

// How the numbers read wherever they are shown: the numbers' pages and the e-mails' summaries
// (one function per figure, so that a summary reads as the page it links to). Western digits,
// as in the link and the licence line; Arabic separators and words.
const numbers = new Intl.NumberFormat('ar', { numberingSystem: 'latn' });
const percent = new Intl.NumberFormat('ar', {
  numberingSystem: 'latn',
  style: 'percent',
  maximumFractionDigits: 1,
});
const dates = new Intl.DateTimeFormat('ar', {
  numberingSystem: 'latn',
  day: 'numeric',
  month: 'long',
  timeZone: 'UTC',
});

const fullDates = new Intl.DateTimeFormat('ar', {
  numberingSystem: 'latn',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A count, as the numbers' pages show it. */
export const formatNumber = (value: number) => numbers.format(value);

/** A percentage of the API (one decimal, null without a base), as the numbers' pages show it. */
export const formatRate = (value: number | null) =>
  value === null ? arStats.statNone : percent.format(value / 100);

/**
 * A group's conversion, as the numbers' pages show it: a percentage, never one above 100 %
 * (domain/conversion.ts: words when the leads outnumber the visitors), or none.
 */
export function formatConversion(numbers: { leads: number; unique_visitors: number }): string {
  const shown = conversion(numbers);
  if (shown.kind === 'rate') return formatRate(shown.percent);
  return shown.kind === 'more_leads' ? arStats.conversionMoreLeads : arStats.statNone;
}

/** Whether any of these groups shows its conversion in words, which the note under the totals explains. */
export const anyMoreLeads = (groups: { leads: number; unique_visitors: number }[]) =>
  groups.some((numbers) => conversion(numbers).kind === 'more_leads');

/** A UTC day of the API (YYYY-MM-DD): its day and month. */
export const formatDate = (date: string) => dates.format(new Date(`${date}T00:00:00Z`));

/** A UTC day of the API (YYYY-MM-DD): its day, month and year (a period may span two years). */
export const formatFullDate = (date: string) => fullDates.format(new Date(`${date}T00:00:00Z`));
