import fp from 'fastify-plugin';
import type { CountKeeper } from '../count-rollups';

export interface CountKeepingPluginOptions {
  keeper: CountKeeper;
  /** How often it looks for finished days not kept as they are now. */
  intervalMs?: number;
}

/**
 * Keeps the programme's finished days (count-rollups.ts) in the background: once the server is
 * ready, then every few seconds and whenever an answer found a day not kept as it is now. A
 * request never waits for it (it counts what is not kept live).
 */
export const countKeepingPlugin = fp<CountKeepingPluginOptions>(
  async (app, { keeper, intervalMs = 5_000 }) => {
    // Started, not awaited: the server listens at once and keeps meanwhile.
    app.addHook('onReady', async () => keeper.start(intervalMs));
    app.addHook('onClose', () => keeper.stop());
  },
  { name: 'count-keeping' },
);
