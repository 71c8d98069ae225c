import { Injectable, Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { isTransactionConflict } from '../common/errors/pg-errors';
import { rawPool } from './raw-pool';
import { LONG_STATEMENT_TIMEOUT } from './timeouts';

type IsolationLevel = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/** How many times an outermost transaction runs when PostgreSQL rolls it back for a conflict. */
const CONFLICT_ATTEMPTS = 4;

interface TransactionContext {
  manager: EntityManager;
  afterCommit: (() => unknown)[];
  /** Run in order once `fn` has returned, still inside the transaction (`beforeCommit`). */
  beforeCommit: (() => Promise<unknown>)[];
  /** Values kept for this transaction (`local`). */
  locals: Map<symbol, unknown>;
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
 * the transaction (and in `afterCommit`), which every caller does. `beforeCommit` lets a writer
 * batch its rows into one statement at the end of the transaction (the outbox does).
 */
@Injectable()
export class TransactionHost {
  private readonly logger = new Logger(TransactionHost.name);
  private readonly store = new AsyncLocalStorage<TransactionContext>();

  /** Whether the server's default isolation is READ COMMITTED (asked once; see `once`). */
  private readCommittedDefault?: Promise<boolean>;

  constructor(private readonly dataSource: DataSource) {}

  get manager(): EntityManager {
    return this.store.getStore()?.manager ?? this.dataSource.manager;
  }

  /**
   * The primary's `pg` pool (raw-pool.ts): `select`'s, and the one a repository takes a connection
   * of its own from (an import's, transfer/imports.repository.ts).
   */
  get pool(): Pool {
    return rawPool(this.dataSource);
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
    const replicaPool = rawPool(replica);
    return this.store.run(
      {
        manager: replica.manager,
        afterCommit: [],
        beforeCommit: [],
        locals: new Map(),
        replicaPool,
      },
      fn,
    );
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
    const context: TransactionContext = {
      manager: this.dataSource.manager,
      afterCommit: [],
      beforeCommit: [],
      locals: new Map(),
    };
    const run = (manager: EntityManager) => {
      context.manager = manager;
      return this.store.run(context, async () => {
        const result = await fn();
        // By index: a callback may add another (rows written at the end write rows of their own).
        for (let i = 0; i < context.beforeCommit.length; i++) await context.beforeCommit[i]();
        return result;
      });
    };
    // READ COMMITTED is the server's default almost everywhere: saying it again costs a round
    // trip per transaction (a `SET TRANSACTION` statement), so it is said only where it is not.
    const result =
      isolation === 'READ COMMITTED' && (await this.serverDefaultsToReadCommitted())
        ? await this.dataSource.transaction(run)
        : await this.dataSource.transaction(isolation, run);
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
   * Runs `fn` in the transaction the caller has open on `client`, a connection it holds itself
   * (the import's): every repository reads and writes on that connection, and what waits for the
   * end of the transaction (`beforeCommit`: the outbox's rows) is written when `fn` returns. The
   * caller commits or rolls back; it calls the answered `committed` once it has committed (the
   * `afterCommit` work, such as handing events to Bull, which a sweeper would do otherwise).
   */
  async onClient<T>(
    client: PoolClient,
    fn: () => Promise<T>,
  ): Promise<{ result: T; committed: () => void }> {
    if (this.inTransaction) throw new Error('onClient: already in a transaction');
    const runner = this.dataSource.createQueryRunner();
    // The runner takes the caller's connection as its own, inside the caller's transaction; it
    // is never released, so the connection stays the caller's.
    Object.assign(runner, { databaseConnection: client, isTransactionActive: true });
    const context: TransactionContext = {
      manager: runner.manager,
      afterCommit: [],
      beforeCommit: [],
      locals: new Map(),
    };
    const result = await this.store.run(context, async () => {
      const answer = await fn();
      for (let i = 0; i < context.beforeCommit.length; i++) await context.beforeCommit[i]();
      return answer;
    });
    return {
      result,
      committed: () => {
        for (const callback of context.afterCommit) {
          Promise.resolve()
            .then(callback)
            .catch((error: unknown) =>
              this.logger.warn({ err: error }, 'after-commit callback failed'),
            );
        }
      },
    };
  }

  /**
   * A read in constant SQL, answering its rows: in the current transaction if there is one, else
   * straight on the driver's pool, without TypeORM's per-statement query runner (the widget
   * reads' hot path, docs/performance.md). For SELECTs only.
   */
  async select<T = Record<string, unknown>>(sql: string, params: unknown[]): Promise<T[]> {
    if (this.inTransaction) return this.manager.query(sql, params);
    const pool = this.store.getStore()?.replicaPool ?? this.pool;
    return (await pool.query(sql, params)).rows as T[];
  }

  /**
   * Lifts the current transaction's statement_timeout to LONG_STATEMENT_TIMEOUT (timeouts.ts), for
   * work that may rightly run for minutes (a payout run over a whole program). One statement, and
   * only inside a transaction: `SET LOCAL` ends with it.
   */
  async allowLongStatements(): Promise<void> {
    if (!this.inTransaction) throw new Error('allowLongStatements outside a transaction');
    await this.manager.query(`SET LOCAL statement_timeout = '${LONG_STATEMENT_TIMEOUT}'`);
  }

  /**
   * Runs `callback` at the end of the current transaction, before it commits, in order: its
   * failure rolls the transaction back. Only inside a transaction.
   */
  beforeCommit(callback: () => Promise<unknown>): void {
    const context = this.store.getStore();
    if (!context || context.replicaPool) throw new Error('beforeCommit outside a transaction');
    context.beforeCommit.push(callback);
  }

  /** A value kept for the current transaction, made by `init` on its first use there. */
  local<T>(key: symbol, init: () => T): T {
    const context = this.store.getStore();
    if (!context || context.replicaPool) throw new Error('local outside a transaction');
    if (!context.locals.has(key)) context.locals.set(key, init());
    return context.locals.get(key) as T;
  }

  private serverDefaultsToReadCommitted(): Promise<boolean> {
    this.readCommittedDefault ??= this.dataSource
      .query(`SELECT current_setting('default_transaction_isolation') AS level`)
      .then(
        (rows: { level: string }[]) => rows[0]?.level === 'read committed',
        () => {
          this.readCommittedDefault = undefined; // ask again next time; say it meanwhile
          return false;
        },
      );
    return this.readCommittedDefault;
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
