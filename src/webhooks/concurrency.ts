/**
 * Group commit for the delivery engine's hot statements: calls that arrive while a batch is being
 * written wait and go together in the next one, so Postgres sees one statement (one round trip,
 * one commit) for many concurrent attempts instead of one each. Under light load a call runs at
 * once (after the current I/O phase, `setImmediate`), alone. A failed batch is retried one item
 * at a time, so one bad item fails only its own caller.
 */
export class Batcher<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    /** Runs one batch; returns one output per input, in order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 128,
    /** Batches written at once (each holds one pool connection while it runs). */
    private readonly maxRunning = 1,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.maxRunning || !this.queue.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.running >= this.maxRunning || !this.queue.length) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.running++;
    // More than one batch's worth waiting: the next one may start beside this one.
    this.schedule();
    try {
      let outputs: O[] | undefined;
      try {
        outputs = await this.run(batch.map((b) => b.item));
      } catch (error) {
        if (batch.length === 1) {
          batch[0].reject(error);
          return;
        }
      }
      if (outputs) {
        batch.forEach((b, i) => b.resolve(outputs[i]));
        return;
      }
      // Isolate the failure: each item alone, so only the bad one (if any) fails.
      await Promise.all(
        batch.map((b) =>
          this.run([b.item]).then(
            ([o]) => b.resolve(o),
            (error: unknown) => b.reject(error),
          ),
        ),
      );
    } finally {
      this.running--;
      this.schedule();
    }
  }
}

/** A counting semaphore: at most `permits` holders at once, the others wait in arrival order. */
export class Semaphore {
  private readonly waiting: (() => void)[] = [];

  constructor(private permits: number) {}

  async acquire(): Promise<void> {
    if (this.permits > 0) {
      this.permits--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.permits++;
  }

  async with<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}
