/** One line of the results table: a figure of ours beside the limit's, and its target. */
export interface Row {
  figure: string;
  ours: string;
  limit: string;
  ratio: string;
  target: string;
  /** undefined when the figure has no target. */
  met: boolean | undefined;
}

export function row(
  figure: string,
  ours: string,
  options: Partial<Omit<Row, 'figure' | 'ours'>> = {},
): Row {
  return { figure, ours, limit: '', ratio: '', target: '', met: undefined, ...options };
}

const header = ['Figure', 'Ours', 'Limit', 'Ours / limit', 'Target', 'Met'];

export function markdownTable(rows: Row[]): string {
  const cells = rows.map((r) => [
    r.figure,
    r.ours,
    r.limit || '–',
    r.ratio || '–',
    r.target || '–',
    r.met === undefined ? '–' : r.met ? 'yes' : '**no**',
  ]);
  const line = (values: string[]) =>
    `| ${values.map((v) => v.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), `|${header.map(() => ' --- ').join('|')}|`, ...cells.map(line)].join('\n');
}

/** Kilobytes of 1,000 bytes, as Vite prints them. */
export function kb(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} KB`;
}

export function ms(value: number): string {
  if (Number.isNaN(value)) return 'n/a';
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}

export function times(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a';
}
