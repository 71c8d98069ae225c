import { Injectable, Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { isTransactionConflict } from '../common/errors/pg-errors';

type IsolationLevel = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/** How many times an outermost transaction runs when PostgreSQL rolls it back for a conflict. */
const CONFLICT_ATTEMPTS = 4;

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
 * The outermost transaction runs `fn` again when PostgreSQL rolls it back for a deadlock or a
 * serialization failure (docs/architecture.md, "Data access"): `fn` must keep its effects in
 * the transaction (and in `afterCommit`), which every caller does.
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
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(fn, isolation);
      } catch (error) {
        if (attempt >= CONFLICT_ATTEMPTS || !isTransactionConflict(error)) throw error;
        // Writers that met in opposite order: one was rolled back; it goes again a moment later.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  }

  private async once<T>(fn: () => Promise<T>, isolation: IsolationLevel): Promise<T> {
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
