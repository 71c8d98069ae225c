import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source';
import { TransactionHost } from './transaction-host';

/** After the replica could not be reached, reads go to the primary for this long. */
export const REPLICA_RETRY_MS = 5000;
/** A replica that does not accept a connection within this is taken as unreachable. */
const REPLICA_CONNECT_TIMEOUT_MS = 1000;

export const replicaReadsTotal = new Counter({
  name: 'replica_reads_total',
  help: 'Reads sent to DATABASE_REPLICA_URL, by outcome: replica, or primary (fallback) with why.',
  labelNames: ['outcome'],
});

/**
 * The Embed Data reads on a streaming replica (`DATABASE_REPLICA_URL`, docs/operations.md). A read is run on
 * the replica first; if the replica answers with an error (most often a member created a moment
 * ago that it has not replayed yet: `404 user_not_found`) or cannot be reached, the same read runs
 * again on the primary, so a client never sees the replica's lag as a missing row. An unreachable
 * replica is left alone for REPLICA_RETRY_MS, reads going to the primary meanwhile. Without the
 * variable every read runs on the primary.
 */
@Injectable()
export class ReplicaReads implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReplicaReads.name);
  private replica?: Promise<DataSource | undefined>;
  private retryAt = 0;

  constructor(
    private readonly config: AppConfig,
    private readonly tx: TransactionHost,
  ) {}

  /** Connects to the replica at boot, so the first read does not pay for (or time out on) it. */
  onApplicationBootstrap(): void {
    if (this.config.databaseReplicaUrl) void this.connected();
  }

  async read<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.config.databaseReplicaUrl || this.tx.inTransaction) return fn();
    const replica = await this.connected();
    if (!replica) {
      replicaReadsTotal.inc({ outcome: 'primary_unreachable' });
      return fn();
    }
    try {
      const result = await this.tx.onReplica(replica, fn);
      replicaReadsTotal.inc({ outcome: 'replica' });
      return result;
    } catch (error) {
      const unreachable = isUnreachable(error);
      if (unreachable) this.markDown(error);
      replicaReadsTotal.inc({ outcome: unreachable ? 'primary_unreachable' : 'primary_missing' });
      return fn();
    }
  }

  private connected(): Promise<DataSource | undefined> {
    if (Date.now() < this.retryAt) return Promise.resolve(undefined);
    this.replica ??= new DataSource({
      ...dataSourceOptions(this.config.databaseReplicaUrl!, this.config.databasePoolSize),
      migrations: [],
      extra: {
        max: this.config.databasePoolSize,
        application_name: 'referral-service:replica',
        connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS,
        ...(this.config.databaseStatementTimeoutMs
          ? { statement_timeout: this.config.databaseStatementTimeoutMs }
          : {}),
      },
    })
      .initialize()
      .catch((error: unknown) => {
        this.markDown(error);
        return undefined;
      });
    return this.replica;
  }

  private markDown(error: unknown): void {
    if (Date.now() >= this.retryAt) {
      this.logger.warn(
        `Replica unreachable (${(error as Error).message}); reading from the primary for ${REPLICA_RETRY_MS} ms`,
      );
    }
    this.retryAt = Date.now() + REPLICA_RETRY_MS;
    // The pool reconnects by itself; only a DataSource that never initialized is made again.
    void this.replica?.then((replica) => {
      if (!replica) this.replica = undefined;
    });
  }

  async onApplicationShutdown(): Promise<void> {
    const replica = await this.replica;
    if (replica?.isInitialized) await replica.destroy();
  }
}

/** A connection failure (refused, reset, timed out, server shutting down), not a query error. */
function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && /^(E[A-Z]+|57P0[1-3]|08\d{3})$/.test(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /timeout|terminat|connect|Connection/i.test(message);
}
