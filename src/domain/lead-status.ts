import { arLeadStatus } from './catalogue/lead-status';

/**
 * What became of a lead, as the provider's CRM tells it (docs/marketer-kit.md). Every lead
 * starts `new`; any status may follow any other.
 */
export const leadStatuses = ['new', 'contacted', 'qualified', 'client', 'lost'] as const;
export type LeadStatus = (typeof leadStatuses)[number];

export function isLeadStatus(value: string): value is LeadStatus {
  return (leadStatuses as readonly string[]).includes(value);
}

/** A status by its key or its Arabic label (trimmed); undefined for anything else. */
export function parseLeadStatus(text: string): LeadStatus | undefined {
  const value = text.trim();
  if (isLeadStatus(value)) return value;
  return leadStatuses.find((status) => arLeadStatus[status] === value);
}
