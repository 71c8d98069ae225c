import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { AppConfig } from '../../config/app-config';
import type { ArrayQuery } from './delivery-store.types';

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
 * index probes cost microseconds. On the engine's own connection hash and merge joins are off,
 * so every lookup is a nested loop over a primary key whatever the statistics say, and the
 * statement keeps its one generic plan rather than being planned again for each call.
 */
const ENGINE_SESSION = [
  'enable_hashjoin=off',
  'enable_mergejoin=off',
  'plan_cache_mode=force_generic_plan',
  `statement_timeout=${STATEMENT_TIMEOUT_MS}`,
]
  .map((setting) => `-c ${setting}`)
  .join(' ');

/**
 * The engine's own `pg` pool beside TypeORM's, for its one statement (statement-loop.ts): the
 * planner settings above must not reach any other query, and rows come back as arrays.
 */
@Injectable()
export class EngineConnection implements OnApplicationShutdown {
  private readonly logger = new Logger(EngineConnection.name);
  private readonly pool: Pool;
  /** Runs a named statement, answering rows as arrays. */
  readonly run: ArrayQuery;

  constructor(config: AppConfig) {
    this.pool = new Pool({
      connectionString: config.databaseUrl,
      max: STATEMENTS_RUNNING,
      application_name: 'referral-service:webhooks',
      options: ENGINE_SESSION,
      query_timeout: STATEMENT_TIMEOUT_MS + 2000,
    });
    // An idle connection that breaks is dropped by the pool; the next statement opens another.
    this.pool.on('error', (error) => this.logger.warn({ err: error }, 'webhook connection lost'));
    this.run = (text, values, name) =>
      this.pool.query<unknown[]>({ text, values, name, rowMode: 'array' }).then((r) => r.rows);
  }

  /** After the worker's drain (beforeApplicationShutdown), which still writes its records. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
