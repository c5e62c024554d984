import { arStats } from '../domain/catalogue/marketer-stats';
import { arProgram } from '../domain/catalogue/program';
import type { ProgramNumbers } from '../domain/program-stats';
import { formatConversion, formatNumber, formatRate } from '../domain/stats-format';

/** The number columns of the programme's tables, in their order. */
export const numberColumns = [
  { key: 'visits', heading: arStats.statVisits },
  { key: 'unique_visitors', heading: arStats.statUniqueVisitors },
  { key: 'leads', heading: arStats.statSignUps },
  { key: 'clients', heading: arStats.statClients },
  { key: 'conversion_percent', heading: arStats.statConversion },
  { key: 'client_percent', heading: arStats.statClientRate },
  { key: 'flagged', heading: arProgram.statFlagged },
  { key: 'not_credited', heading: arStats.statNotCredited },
] as const satisfies { key: keyof ProgramNumbers; heading: string }[];

/** A number column's cell, as shown. */
export function cell(row: ProgramNumbers, key: (typeof numberColumns)[number]['key']): string {
  if (key === 'conversion_percent') return formatConversion(row);
  return key === 'client_percent' ? formatRate(row[key]) : formatNumber(row[key]);
}
