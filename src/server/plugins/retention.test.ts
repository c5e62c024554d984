import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Deleted, Selection } from '../registrations/personal-data';
import { retentionPlugin } from './retention';

afterEach(() => {
  vi.useRealTimers();
});

const none: Deleted = { ids: [], statusChanges: 0, reviews: 0, webhookEvents: 0 };
const chunk = (n: number): Deleted => ({
  ids: Array.from({ length: n }, (_, i) => `id-${i}`),
  statusChanges: 1,
  reviews: 0,
  webhookEvents: 2,
});

describe('retentionPlugin', () => {
  it('deletes chunk after chunk at start and again each interval, until closed', async () => {
    vi.useFakeTimers();
    const asked: Selection[] = [];
    const chunks = [chunk(3), chunk(2)];
    const app = Fastify({ logger: false });
    const now = new Date('2025-04-10T12:00:00.000Z');
    await app.register(retentionPlugin, {
      days: 30,
      now: () => now,
      intervalMs: 1_000,
      deleteSubmissions: async (selection) => {
        asked.push(selection);
        return chunks.shift() ?? none;
      },
    });
    await app.ready();
    // Two chunks, then one that finds nothing left.
    await vi.waitFor(() => expect(asked).toHaveLength(3));
    expect(new Set(asked.map((selection) => JSON.stringify(selection)))).toEqual(
      new Set([JSON.stringify({ createdBefore: '2025-03-11T12:00:00.000Z' })]),
    );

    await vi.advanceTimersByTimeAsync(3_000);
    expect(asked).toHaveLength(6);
    await app.close();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(asked).toHaveLength(6);
  });

  it('is ready while the deletion still runs, and stops it between chunks at close', async () => {
    let started = 0;
    let finished = 0;
    const app = Fastify({ logger: false });
    await app.register(retentionPlugin, {
      days: 30,
      now: () => new Date(),
      // A backlog without end, 20 ms a chunk.
      deleteSubmissions: async () => {
        started += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished += 1;
        return chunk(2_000);
      },
    });
    await app.ready();
    expect(finished).toBe(0);
    await vi.waitFor(() => expect(finished).toBeGreaterThan(2));

    await app.close();
    // The chunk in flight at close was finished, and none started after it.
    expect(finished).toBe(started);
  });
});
