import { Injectable, Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

type IsolationLevel = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

interface TransactionContext {
  manager: EntityManager;
  afterCommit: (() => unknown)[];
  /** Reads on the streaming replica (replica-reads.ts): no transaction; `select` uses this pool. */
  replicaPool?: Pool;
}

/**
 * One transaction per state change, without threading an EntityManager through every call:
 * `transaction(fn)` runs `fn` with its manager in async-local storage, and every repository reads
 * `manager`, so whatever runs inside `fn` joins the transaction. A nested call joins the outer one.
 * `afterCommit` defers work that must see the committed state (handing jobs to Bull).
 */
@Injectable()
export class TransactionHost {
  private readonly logger = new Logger(TransactionHost.name);
  private readonly store = new AsyncLocalStorage<TransactionContext>();

  constructor(private readonly dataSource: DataSource) {}

  get manager(): EntityManager {
    return this.store.getStore()?.manager ?? this.dataSource.manager;
  }

  get inTransaction(): boolean {
    const context = this.store.getStore();
    return context !== undefined && !context.replicaPool;
  }

  /**
   * Runs `fn` with every repository reading on `replica` (a DataSource of the streaming replica):
   * `manager` and `select` answer from it. A `transaction()` inside still opens on the primary.
   */
  onReplica<T>(replica: DataSource, fn: () => Promise<T>): Promise<T> {
    const replicaPool = (replica.driver as unknown as { master: Pool }).master;
    return this.store.run({ manager: replica.manager, afterCommit: [], replicaPool }, fn);
  }

  async transaction<T>(
    fn: () => Promise<T>,
    isolation: IsolationLevel = 'READ COMMITTED',
  ): Promise<T> {
    if (this.inTransaction) return fn();
    const context: TransactionContext = { manager: this.dataSource.manager, afterCommit: [] };
    const result = await this.dataSource.transaction(isolation, (manager) => {
      context.manager = manager;
      return this.store.run(context, fn);
    });
    for (const callback of context.afterCommit) {
      // Best effort by design: whatever it hands on is also found later by a sweeper.
      Promise.resolve()
        .then(callback)
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'after-commit callback failed'),
        );
    }
    return result;
  }

  /**
   * A read in constant SQL, answering its rows: in the current transaction if there is one, else
   * straight on the driver's pool, without TypeORM's per-statement query runner (the widget
   * reads' hot path, docs/performance.md). For SELECTs only.
   */
  async select<T = Record<string, unknown>>(sql: string, params: unknown[]): Promise<T[]> {
    if (this.inTransaction) return this.manager.query(sql, params);
    const pool =
      this.store.getStore()?.replicaPool ??
      (this.dataSource.driver as unknown as { master: Pool }).master;
    return (await pool.query(sql, params)).rows as T[];
  }

  /** Runs `callback` once the current transaction has committed (at once outside one). */
  afterCommit(callback: () => unknown): void {
    const context = this.inTransaction ? this.store.getStore() : undefined;
    if (context) context.afterCommit.push(callback);
    else
      Promise.resolve()
        .then(callback)
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'after-commit callback failed'),
        );
  }
}
