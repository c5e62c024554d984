import { arStats } from '../domain/catalogue/marketer-stats';
import { conversion } from '../domain/conversion';
import type { Week, WeekNumbers } from '../domain/notifications';
import { changeOf, changeTexts } from '../domain/period-change';
import { arMail } from '../domain/catalogue/mail';
import { formatConversion, formatFullDate, formatNumber } from '../domain/stats-format';

/** One total of a week's table: its label, this week's and the week before's as shown, the change. */
export interface WeekRow {
  label: string;
  value: string;
  previous: string;
  /** Drawn (an arrow) and said (words), as on the programme's page; none for a rate neither has. */
  change: { drawn: string; said: string } | undefined;
}

const counts = [
  [arStats.statVisits, 'visits'],
  [arStats.statUniqueVisitors, 'unique_visitors'],
  [arStats.statSignUps, 'leads'],
  [arStats.statClients, 'clients'],
] as const;

/** A conversion as a rate, or none where it is not one (no visitors, or leads past them). */
function conversionRate(numbers: WeekNumbers): number | null {
  const shown = conversion(numbers);
  return shown.kind === 'rate' ? shown.percent : null;
}

/**
 * A week's totals against the week before, in the pages' words and figures (domain/stats-format.ts,
 * domain/period-change.ts), so that a summary reads as the page it links to.
 */
export function weekRows(numbers: WeekNumbers, previous: WeekNumbers): WeekRow[] {
  return [
    ...counts.map(([label, key]) => ({
      label,
      value: formatNumber(numbers[key]),
      previous: formatNumber(previous[key]),
      change: changeTexts(changeOf(numbers[key], previous[key])),
    })),
    {
      label: arStats.statConversion,
      value: formatConversion(numbers),
      previous: formatConversion(previous),
      change: changeTexts(changeOf(conversionRate(numbers), conversionRate(previous))),
    },
  ];
}

/**
 * A member's week, as their line on a team leader's summary: each figure after its label. Their
 * sign-ups, clients and conversion (the team's visits are in its totals): with the member, four
 * columns are as many as a 320 px phone shows side by side.
 */
export function memberFigures(numbers: WeekNumbers): { label: string; value: string }[] {
  return [
    ...memberCounts.map(([label, key]) => ({ label, value: formatNumber(numbers[key]) })),
    { label: arStats.statConversion, value: formatConversion(numbers) },
  ];
}

const memberCounts = counts.filter(([, key]) => key === 'leads' || key === 'clients');

/** The members' table's columns after the member: memberFigures's labels. */
export const memberColumns = [...memberCounts.map(([label]) => label), arStats.statConversion];

/** Nothing happened: no visit and no sign-up (a client counts on its sign-up's day). */
export const isEmptyWeek = (numbers: WeekNumbers) => numbers.visits === 0 && numbers.leads === 0;

/** A marketer as the pages name them: the name and the id, or the id alone. */
export const marketerName = (name: string | null, id: string) =>
  name === null ? id : arStats.named(name, id);

/** The week's days, Sunday to Saturday, as the pages write a day. */
export const weekLine = (week: Week) =>
  arMail.week(formatFullDate(week.from), formatFullDate(week.to));
