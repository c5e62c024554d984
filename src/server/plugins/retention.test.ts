import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Selection } from '../registrations/personal-data';
import { retentionPlugin } from './retention';

afterEach(() => {
  vi.useRealTimers();
});

describe('retentionPlugin', () => {
  it('deletes what is past the limit at start and again each interval, until closed', async () => {
    vi.useFakeTimers();
    const asked: Selection[] = [];
    const app = Fastify({ logger: false });
    const now = new Date('2025-04-10T12:00:00.000Z');
    await app.register(retentionPlugin, {
      days: 30,
      now: () => now,
      intervalMs: 1_000,
      deleteSubmissions: async (selection) => {
        asked.push(selection);
        return { ids: [], statusChanges: 0, webhookEvents: 0 };
      },
    });
    await app.ready();
    expect(asked).toEqual([{ createdBefore: '2025-03-11T12:00:00.000Z' }]);

    await vi.advanceTimersByTimeAsync(3_000);
    expect(asked).toHaveLength(4);
    await app.close();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(asked).toHaveLength(4);
  });
});
