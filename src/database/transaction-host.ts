import { Injectable } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager } from 'typeorm';

type IsolationLevel = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/**
 * One transaction per state change, without threading an EntityManager through every call:
 * `transaction(fn)` runs `fn` with its manager in async-local storage, and every repository reads
 * `manager`, so whatever runs inside `fn` joins the transaction. A nested call joins the outer one.
 */
@Injectable()
export class TransactionHost {
  private readonly store = new AsyncLocalStorage<EntityManager>();

  constructor(private readonly dataSource: DataSource) {}

  get manager(): EntityManager {
    return this.store.getStore() ?? this.dataSource.manager;
  }

  get inTransaction(): boolean {
    return this.store.getStore() !== undefined;
  }

  transaction<T>(fn: () => Promise<T>, isolation: IsolationLevel = 'READ COMMITTED'): Promise<T> {
    if (this.inTransaction) return fn();
    return this.dataSource.transaction(isolation, (manager) => this.store.run(manager, fn));
  }
}
