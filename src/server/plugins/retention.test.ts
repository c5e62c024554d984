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
    const erased: string[] = [];
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
      erasePeople: async (inactiveBefore) => {
        erased.push(inactiveBefore);
        return 1;
      },
    });
    await app.ready();
    // Two chunks, then one that finds nothing left; then the people inactive as long.
    await vi.waitFor(() => expect(erased).toHaveLength(1));
    expect(asked).toHaveLength(3);
    expect(new Set(asked.map((selection) => JSON.stringify(selection)))).toEqual(
      new Set([JSON.stringify({ createdBefore: '2025-03-11T12:00:00.000Z' })]),
    );
    expect(erased).toEqual(['2025-03-11T12:00:00.000Z']);

    await vi.advanceTimersByTimeAsync(3_000);
    expect(asked).toHaveLength(6);
    expect(erased).toHaveLength(4);
    await app.close();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(asked).toHaveLength(6);
    expect(erased).toHaveLength(4);
  });

  it('erases the inactive people even when the submissions could not be deleted', async () => {
    const erased: string[] = [];
    const app = Fastify({ logger: false });
    await app.register(retentionPlugin, {
      days: 1,
      now: () => new Date('2025-04-10T12:00:00.000Z'),
      deleteSubmissions: async () => {
        throw new Error('the database is out of reach');
      },
      erasePeople: async (inactiveBefore) => {
        erased.push(inactiveBefore);
        return 0;
      },
    });
    await app.ready();
    await vi.waitFor(() => expect(erased).toEqual(['2025-04-09T12:00:00.000Z']));
    await app.close();
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
      erasePeople: async () => expect.fail('closed before the submissions were all deleted'),
    });
    await app.ready();
    expect(finished).toBe(0);
    await vi.waitFor(() => expect(finished).toBeGreaterThan(2));

    await app.close();
    // The chunk in flight at close was finished, and none started after it.
    expect(finished).toBe(started);
  });
});
