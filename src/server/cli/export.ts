import { chmod, writeFile } from 'node:fs/promises';
import { csvCell, csvText } from '../../domain/csv';
import { defineCommand, parseSince, visibleJson } from './command';
import { registrationColumns, type LeadFlag } from '../db/schema';
import { flagNames } from '../leads/flag-names';
import {
  createRegistrationRepository,
  type StoredRegistration,
} from '../registrations/registration-repository';

// The export is the table: its columns, in its order, then the submission's flags.
export const exportFields = [...registrationColumns, 'flags'] as const;

export type ExportFormat = 'csv' | 'jsonl';

/**
 * A submission as the export writes it, and as `npm run person` shows it: the table's names, and
 * its flags' names (docs/flags.md) separated by spaces, '' for none.
 */
export function exportRecord(
  row: StoredRegistration,
  flags: readonly LeadFlag[],
): Record<(typeof exportFields)[number], string | boolean | null> {
  return {
    id: row.id,
    created_at: row.createdAt,
    name: row.name,
    email: row.email,
    phone: row.phone,
    notes: row.notes,
    marketing_id: row.marketingId,
    package_key: row.packageKey,
    source: row.source,
    repeat_of: row.repeatOf,
    utm_source: row.utm.utm_source ?? null,
    utm_medium: row.utm.utm_medium ?? null,
    utm_campaign: row.utm.utm_campaign ?? null,
    utm_term: row.utm.utm_term ?? null,
    utm_content: row.utm.utm_content ?? null,
    privacy_url: row.consent.privacyUrl,
    privacy_version: row.consent.privacyVersion,
    channel: row.consent.channel,
    status: row.status,
    status_changed_at: row.statusChangedAt,
    privacy_attested: row.consent.attested,
    flags: flags.join(' '),
  };
}

/**
 * The leads as a file: CSV (RFC 4180, CRLF, with a UTF-8 byte order mark so that Excel reads
 * the Arabic as Arabic) or JSON Lines (one object a line, null for an absent value).
 */
export function formatRegistrations(
  rows: StoredRegistration[],
  flags: Map<string, LeadFlag[]>,
  format: ExportFormat,
): string {
  const records = rows.map((row) => exportRecord(row, flags.get(row.id) ?? []));
  if (format === 'jsonl') return records.map((record) => `${visibleJson(record)}\n`).join('');
  const lines = [
    exportFields.join(','),
    ...records.map((record) =>
      exportFields
        .map((field) => {
          const value = record[field];
          return csvCell(typeof value === 'boolean' ? String(value) : value);
        })
        .join(','),
    ),
  ];
  return csvText(lines);
}

export const exportCommand = defineCommand({
  name: 'export',
  summary: 'every submission as a file: CSV or JSON Lines',
  usage: ['--format csv|jsonl [--since YYYY-MM-DD[THH:MM:SSZ]] [--output FILE]'],
  options: {
    format: { type: 'string' },
    since: { type: 'string' },
    output: { type: 'string' },
  },
  parse(values) {
    if (values.format !== 'csv' && values.format !== 'jsonl') {
      throw new Error('--format must be csv or jsonl');
    }
    return { format: values.format, since: parseSince(values.since), output: values.output };
  },
  async run(database, { format, since, output }, { out }) {
    const rows = await createRegistrationRepository(database).list({ since });
    const flags = await flagNames(database.db, { since: since?.toISOString() ?? '' });
    const text = formatRegistrations(rows, flags, format);
    if (output === undefined) {
      out(text);
    } else {
      // Personal data: readable by the owner only, also when the file was already there.
      await writeFile(output, text, { mode: 0o600 });
      await chmod(output, 0o600);
    }
    return 0;
  },
});
