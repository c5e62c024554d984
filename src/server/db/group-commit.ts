/** One item's outcome within a batch: a batch may store some sign-ups and fail others. */
export type ItemResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Group commit: every sign-up waits for its commit, and a commit costs a wait for the disk,
 * so the sign-ups that arrive together share one. A batch is written once the event loop has
 * read every request that is waiting (setImmediate), and while `maxInFlight` batches are being
 * written, new arrivals wait for one of them to end and then go together. `write` answers each
 * item of a batch in order; if it throws, the whole batch fails with its error.
 */
export function groupCommit<Item, Result>(
  write: (batch: Item[]) => ItemResult<Result>[] | Promise<ItemResult<Result>[]>,
  maxInFlight: number,
  /** Hears of each batch written: its size and how long it took (the metrics). */
  observe?: (size: number, seconds: number) => void,
): ((item: Item) => Promise<Result>) & { waitingMs(): number } {
  type Waiting = {
    item: Item;
    /** performance.now() when it arrived. */
    at: number;
    resolve: (result: Result) => void;
    reject: (error: unknown) => void;
  };
  let pending: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule() {
    if (scheduled || pending.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    setImmediate(flush);
  }

  async function flush() {
    scheduled = false;
    const batch = pending;
    pending = [];
    inFlight += 1;
    const started = performance.now();
    try {
      const outcomes = await write(batch.map(({ item }) => item));
      observe?.(batch.length, (performance.now() - started) / 1000);
      batch.forEach(({ resolve, reject }, index) => {
        const outcome = outcomes[index];
        if (outcome === undefined) reject(new Error('the batch write answered fewer items'));
        else if (outcome.ok) resolve(outcome.value);
        else reject(outcome.error);
      });
    } catch (error) {
      for (const { reject } of batch) reject(error);
    } finally {
      inFlight -= 1;
      schedule();
    }
  }

  const add = (item: Item) =>
    new Promise<Result>((resolve, reject) => {
      pending.push({ item, at: performance.now(), resolve, reject });
      schedule();
    });
  // How long the oldest item not yet in a batch has waited: the queue a new one would join.
  const waitingMs = () => (pending[0] === undefined ? 0 : performance.now() - pending[0].at);
  return Object.assign(add, { waitingMs });
}
