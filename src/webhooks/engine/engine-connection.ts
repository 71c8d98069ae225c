import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { OwnPool } from '../../database/own-pool';
import type { ArrayQuery } from './deliveries.types';

/** Statements in flight at once per process (each on a connection of the engine's own pool). */
export const STATEMENTS_RUNNING = 1;
/**
 * The engine's connection: a statement that runs longer than this is cancelled by the server
 * (and one whose answer never comes is abandoned a little later), then written again.
 */
const STATEMENT_TIMEOUT_MS = 10_000;
/**
 * The engine's statements find a few hundred deliveries by key, from arrays whose length a cached
 * plan cannot know, in a table that grows faster than its statistics: the planner would hash
 * the whole table (a 30,000-row scan per statement, measured by the webhooks benchmark) where
 * index probes cost microseconds. For the engine's statement hash and merge joins are off, so
 * every lookup is a nested loop over a primary key whatever the statistics say.
 *
 * The settings are transaction-scoped (`SET LOCAL`, sent with `BEGIN` in one round trip) and the
 * statement is unnamed, so the engine works through PgBouncer in transaction mode (docs/operations.md), which
 * refuses an `options` startup parameter and may run each transaction on another server
 * connection, where a named prepared statement does not exist.
 */
export const ENGINE_BEGIN = [
  'BEGIN',
  'SET LOCAL enable_hashjoin = off',
  'SET LOCAL enable_mergejoin = off',
  `SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`,
].join('; ');

/**
 * The engine's own `pg` pool beside TypeORM's (database/own-pool.ts), for its one statement
 * (statement-loop.ts): the planner settings above must not reach any other query, and rows come
 * back as arrays.
 */
@Injectable()
export class EngineConnection implements OnApplicationShutdown {
  private readonly logger = new Logger(EngineConnection.name);
  private readonly pool: OwnPool;
  /** Runs the statement in its own transaction with the settings above, rows as arrays. */
  readonly run: ArrayQuery;

  constructor(config: AppConfig) {
    this.pool = new OwnPool(
      {
        connectionString: config.databaseUrl,
        max: STATEMENTS_RUNNING,
        application_name: 'referral-service:webhooks',
        query_timeout: STATEMENT_TIMEOUT_MS + 2000,
      },
      (error) => this.logger.warn({ err: error }, 'webhook connection lost'),
    );
    this.run = (text, values) => this.pool.inTransaction(ENGINE_BEGIN, text, values);
  }

  /** After the worker's drain (beforeApplicationShutdown), which still writes its records. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
