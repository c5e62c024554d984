import fp from 'fastify-plugin';
import type { VisitCounter } from '../visits/visit-counter';

export interface VisitsPluginOptions {
  visits: VisitCounter;
  flushIntervalMs?: number;
}

/** Writes the page visits noted in memory every second, and the last ones before closing. */
export const visitsPlugin = fp<VisitsPluginOptions>(
  async (app, { visits, flushIntervalMs = 1000 }) => {
    const timer = setInterval(() => void visits.flush(), flushIntervalMs);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await visits.flush();
    });
  },
  { name: 'visits' },
);
