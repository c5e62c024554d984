import { freePort } from '../scripts/local-machine';
import { load, signUps, withOurServer, type BenchDatabase } from './api';
import { row, times, type Row } from './table';

// Issue 16's target: counting costs the sign-ups almost nothing.
const minOnOffRatio = 0.95;
const seconds = 10;

/** Sign-ups per second with METRICS_PORT set against unset, taking turns, best of two each. */
export async function benchMetrics(
  database: BenchDatabase,
  distDir: string,
  scratch: string,
  log: (line: string) => void,
): Promise<{ rows: Row[]; notes: string[] }> {
  const rates = { off: [] as number[], on: [] as number[] };
  for (const mode of ['off', 'on', 'off', 'on'] as const) {
    log(`metrics ${database.label}: sign-ups/s with metrics ${mode}`);
    const run = `metrics-${database.label.toLowerCase()}-${mode}-${rates[mode].length}`;
    const port = mode === 'on' ? String(await freePort()) : undefined;
    const rate = await withOurServer(
      database,
      run,
      distDir,
      scratch,
      { METRICS_PORT: port },
      async (server) => {
        const next = signUps();
        await load(server.origin, 2, next);
        return (await load(server.origin, seconds, next)).result.requests.average;
      },
    );
    rates[mode].push(rate);
  }
  const off = Math.max(...rates.off);
  const on = Math.max(...rates.on);
  const prefix = `Metrics ${database.label}`;
  return {
    rows: [
      row(`${prefix}: sign-ups/s with METRICS_PORT set (${seconds} s)`, on.toFixed(0), {
        limit: `${off.toFixed(0)} off`,
        ratio: times(on / off),
        target: `≥ ${minOnOffRatio}× off`,
        met: on / off >= minOnOffRatio,
      }),
    ],
    notes: [
      `${prefix}: sign-ups/s off ${rates.off.map((r) => r.toFixed(0)).join(', ')}, on ${rates.on.map((r) => r.toFixed(0)).join(', ')}.`,
    ],
  };
}
