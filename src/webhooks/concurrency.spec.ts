import { Batcher, Semaphore } from './concurrency';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Batcher', () => {
  it('writes calls that arrive together as one batch, and later ones in the next', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = new Batcher<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await gate;
      return items.map((i) => i * 10);
    });
    const first = [1, 2, 3].map((i) => batcher.submit(i));
    await tick();
    // While the first batch is written, more calls queue up behind it.
    const second = [4, 5].map((i) => batcher.submit(i));
    await tick();
    expect(batches).toEqual([[1, 2, 3]]);
    release();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('keeps at most maxRunning batches in flight and at most maxBatch items in one', async () => {
    let running = 0;
    let most = 0;
    const sizes: number[] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        running++;
        most = Math.max(most, running);
        sizes.push(items.length);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return items;
      },
      4,
      2,
    );
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => batcher.submit(i)));
    expect(all).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4);
  });

  it('fails only the bad item of a failed batch (the others are retried alone)', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      runs.push(items);
      if (items.includes(2)) throw new Error('bad item');
      return items;
    });
    const results = await Promise.allSettled([1, 2, 3].map((i) => batcher.submit(i)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(runs).toEqual([[1, 2, 3], [1], [2], [3]]);
  });
});

describe('Semaphore', () => {
  it('lets at most `permits` holders run at once, the others in arrival order', async () => {
    const semaphore = new Semaphore(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        semaphore.with(async () => {
          order.push(i);
          running++;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 2));
          running--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('gives the permit back when the holder throws', async () => {
    const semaphore = new Semaphore(1);
    await expect(semaphore.with(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(semaphore.with(() => Promise.resolve(7))).resolves.toBe(7);
  });
});
