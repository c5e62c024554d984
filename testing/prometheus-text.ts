/** One sample of a scrape: `name{labels} value`, histograms' _bucket, _sum and _count included. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

// https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;
const unescape = (value: string) =>
  value.replace(/\\(.)/g, (_, char: string) => (char === 'n' ? '\n' : char));

/**
 * Parses the Prometheus text exposition format (the npm parsers at hand lose the labels of
 * histograms). Throws on a line that is neither a comment nor a sample, so a malformed scrape
 * fails the test rather than reading as zeros.
 */
export function parsePrometheusText(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = sampleLine.exec(line);
      if (match === null) throw new Error(`not a Prometheus sample: ${line}`);
      const [, name = '', labelText = '', value = ''] = match;
      const labels: Record<string, string> = {};
      let read = 0;
      labelPair.lastIndex = 0;
      for (let pair; (pair = labelPair.exec(labelText)); read = labelPair.lastIndex) {
        labels[pair[1]!] = unescape(pair[2]!);
      }
      if (read !== labelText.length) throw new Error(`malformed labels: ${line}`);
      return { name, labels, value: Number(value) };
    });
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there are none). */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  return samples
    .filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}
