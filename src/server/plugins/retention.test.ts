import Fastify from 'fastify';
import fp from 'fastify-plugin';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Selection } from '../registrations/personal-data';
import { retentionPlugin } from './retention';

describe('retentionPlugin', () => {
  it('deletes what is past the limit at start and again each interval, until closed', async () => {
    const asked: Selection[] = [];
    const app = Fastify({ logger: false });
    onTestFinished(() => app.close());
    await app.register(
      fp(
        async (instance) => {
          instance.decorate('deleteSubmissions', async (selection: Selection) => {
            asked.push(selection);
            return { ids: [], webhookEvents: 0 };
          });
        },
        { name: 'database' },
      ),
    );
    const now = new Date('2025-04-10T12:00:00.000Z');
    await app.register(retentionPlugin, { days: 30, now: () => now, intervalMs: 20 });
    await app.ready();
    expect(asked[0]).toEqual({ createdBefore: '2025-03-11T12:00:00.000Z' });

    await new Promise((resolve) => setTimeout(resolve, 100));
    await app.close();
    const runs = asked.length;
    expect(runs).toBeGreaterThan(2);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(asked).toHaveLength(runs);
  });
});
