import { describe, expect, it } from 'vitest';
import { groupCommit, type ItemResult } from './group-commit';

const ok = <T>(value: T): ItemResult<T> => ({ ok: true, value });

/** A write whose batches are kept, and which ends each batch only when told to. */
function controlledWrite() {
  const batches: number[][] = [];
  const ends: (() => void)[] = [];
  const write = (batch: number[]) => {
    batches.push(batch);
    return new Promise<ItemResult<number>[]>((resolve) =>
      ends.push(() => resolve(batch.map((n) => ok(n * 10)))),
    );
  };
  return { batches, ends, write };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('groupCommit', () => {
  it('writes what arrives in one turn as one batch, in order, and answers each its own', async () => {
    const write = (batch: number[]) => batch.map((n) => ok(n * 10));
    const register = groupCommit(write, 1);

    expect(await Promise.all([1, 2, 3].map(register))).toEqual([10, 20, 30]);
  });

  it('holds later arrivals while the batches in flight are at the limit, then sends them together', async () => {
    const { batches, ends, write } = controlledWrite();
    const register = groupCommit(write, 1);

    const first = register(1);
    await turn();
    const later = [2, 3, 4].map(register);
    await turn();
    expect(batches).toEqual([[1]]);

    ends[0]?.();
    await first;
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    ends[1]?.();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('writes up to the limit of batches at once', async () => {
    const { batches, ends, write } = controlledWrite();
    const register = groupCommit(write, 2);

    const answers = [register(1)];
    await turn();
    answers.push(register(2));
    await turn();
    answers.push(register(3));
    await turn();
    expect(batches).toEqual([[1], [2]]);

    ends[0]?.();
    await turn();
    await turn();
    expect(batches).toEqual([[1], [2], [3]]);
    ends[1]?.();
    ends[2]?.();
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
  });

  it('fails one item alone, or the whole batch when the write throws, and goes on after', async () => {
    let failWhole = false;
    const register = groupCommit((batch: number[]) => {
      if (failWhole) throw new Error('out of reach');
      return batch.map((n): ItemResult<number> =>
        n === 2 ? { ok: false, error: 'bad row' } : ok(n),
      );
    }, 1);

    expect(await Promise.allSettled([1, 2, 3].map(register))).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: 'bad row' },
      { status: 'fulfilled', value: 3 },
    ]);
    failWhole = true;
    const whole = await Promise.allSettled([4, 5].map(register));
    expect(whole.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    failWhole = false;
    expect(await register(6)).toBe(6);
  });
});
