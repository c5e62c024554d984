import fp from 'fastify-plugin';
import type { CountKeeper } from '../count-rollups';

export interface CountKeepingPluginOptions {
  keeper: CountKeeper;
  now: () => Date;
  /** How often it looks for finished days not kept as they are now. */
  intervalMs?: number;
  onError: (error: unknown) => void;
}

/**
 * Keeps the programme's finished days (count-rollups.ts) in the background: at start, then every
 * few seconds, so that a day a write marked is counted again before most pages ask for it. One
 * run at a time; a request never waits for one (it counts what is not kept live).
 */
export const countKeepingPlugin = fp<CountKeepingPluginOptions>(
  async (app, { keeper, now, intervalMs = 5_000, onError }) => {
    let running: Promise<void> | undefined;
    const run = () => {
      running ??= keeper
        .keep(now())
        .catch(onError)
        .finally(() => (running = undefined));
    };
    // Started, not awaited: the server listens at once and keeps meanwhile.
    app.addHook('onReady', async () => run());
    const timer = setInterval(run, intervalMs);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      keeper.stop();
      await running;
    });
  },
  { name: 'count-keeping' },
);
