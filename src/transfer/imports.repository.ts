import { Injectable } from '@nestjs/common';
import { Client, type ClientConfig, type Pool, type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Writable } from 'node:stream';
import { checkOut } from '../database/checkout';
import { LONG_STATEMENT_TIMEOUT } from '../database/timeouts';
import { PersonalData } from '../common/privacy/personal-data.decorator';
import { redactColumns } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';
import type { ApplyCounts, ApplyPhase } from '../members/member-import.service';
import { STAGING_COLUMNS, type ImportError, type ImportFormat } from './import-rows';

/** The apply's phases in order: a phase report never moves an import back. */
const PHASES = ['staging', 'checking', 'tree', 'writing', 'done'];
/** The owner locks' class (import-owners.ts): key hashtext(import id). */
const IMPORT_LOCK_CLASS = 21;

export interface ImportRow {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  phase: string;
  rows_total: number;
  rows_done: number;
  created: number;
  updated: number;
  unchanged: number;
  errors: ImportError[];
  error_count: number;
  created_at: Date;
  finished_at: Date | null;
}

/** The per-import staging table (ids are ULIDs: only [0-9a-z] once lower-cased). */
export function stagingTable(importId: string): string {
  return `import_rows_${importId.slice(4).toLowerCase()}`;
}

/**
 * `imports` and the imports' staging tables. An import runs on one pool connection of its own
 * (import-run.ts: its owner lock, staging and transaction, docs/import-export.md), so most
 * statements here take that connection; the others run on the pool, never inside an import's
 * transaction (nobody sees that before its commit).
 */
@Injectable()
export class ImportsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get pool(): Pool {
    return this.tx.pool;
  }

  /** A connection of the pool for one import; `onLost` hears of its backend going away. */
  connect(onLost: (error: Error) => void): Promise<PoolClient> {
    return checkOut(this.pool, onLost);
  }

  /**
   * The import's session settings: its own statement timeout (its statements may rightly run for
   * minutes), and a check every second that this process is still there, even in the middle of a
   * statement or a lock wait (PostgreSQL 14+): a killed process's import ends at once, and with it
   * its owner lock, for the sweep.
   */
  async prepareSession(client: PoolClient): Promise<void> {
    await client.query(
      `SELECT set_config('statement_timeout', $1, false),
              (SELECT set_config(name, '1000', false) FROM pg_settings
                WHERE name = 'client_connection_check_interval')`,
      [LONG_STATEMENT_TIMEOUT],
    );
  }

  /** Takes the owner lock of an import on its connection, kept until disown() or its end. */
  async own(client: PoolClient, importId: string): Promise<void> {
    await client.query(`SELECT pg_advisory_lock($1, hashtext($2))`, [IMPORT_LOCK_CLASS, importId]);
  }

  /** The import's row, `running`, and its empty staging table. */
  async start(
    client: PoolClient,
    tenantId: string,
    importId: string,
    format: ImportFormat,
    actor: { type: string; name: string },
  ): Promise<void> {
    await client.query(
      `INSERT INTO imports (tenant_id, id, status, format, actor_type, actor_name)
       VALUES ($1, $2, 'running', $3, $4, $5)`,
      [tenantId, importId, format, actor.type, actor.name],
    );
    await client.query(
      `CREATE UNLOGGED TABLE ${stagingTable(importId)} (line integer NOT NULL,
         member_id text NOT NULL, service_user_id text NOT NULL, external_id text NOT NULL,
         full_name text, email text, role text, referrer_external_id text, joined_at timestamptz,
         group_slug text)`,
    );
  }

  /** Where the parsed rows go: `COPY … FROM STDIN` into the staging table. */
  copyIntoStaging(client: PoolClient, importId: string): Writable {
    return client.query(
      copyFrom(`COPY ${stagingTable(importId)} (${STAGING_COLUMNS.join(', ')}) FROM STDIN`),
    );
  }

  async staged(client: PoolClient, tenantId: string, importId: string, rows: number) {
    await client.query(
      `UPDATE imports SET rows_total = $3, phase = 'checking', updated_at = now()
        WHERE tenant_id = $1 AND id = $2`,
      [tenantId, importId, rows],
    );
  }

  async begin(client: PoolClient): Promise<void> {
    await client.query('BEGIN');
  }

  async commit(client: PoolClient): Promise<void> {
    await client.query('COMMIT');
  }

  async rollback(client: PoolClient): Promise<void> {
    await client.query('ROLLBACK');
  }

  /** The outcome, in the apply's transaction: it commits with the members. */
  async succeed(client: PoolClient, tenantId: string, importId: string, counts: ApplyCounts) {
    await client.query(
      `UPDATE imports SET status = 'succeeded', phase = 'done', rows_done = rows_total,
              created = $3, updated = $4, unchanged = $5, updated_at = now(),
              finished_at = now()
        WHERE tenant_id = $1 AND id = $2`,
      [tenantId, importId, counts.created, counts.updated, counts.unchanged],
    );
  }

  /**
   * Fails the import, on its connection or (`client` undefined) from the pool. Never over a
   * succeeded import: its status committed with its members, and an error after that (the audit
   * entry) does not undo them.
   */
  async fail(
    client: PoolClient | undefined,
    tenantId: string,
    importId: string,
    errors: ImportError[],
    count: number,
  ): Promise<void> {
    await (client ?? this.pool).query(
      `UPDATE imports SET status = 'failed', phase = 'done', errors = $3, error_count = $4,
              updated_at = now(), finished_at = now()
        WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
      [tenantId, importId, JSON.stringify(errors), count],
    );
  }

  /**
   * Drops the staging table, gives the owner lock up and resets the session settings, on the
   * import's connection; one that fails here is discarded by the caller (the lock with it).
   */
  async finish(client: PoolClient, importId: string): Promise<void> {
    await client.query(`DROP TABLE IF EXISTS ${stagingTable(importId)}`);
    await client.query(`SELECT pg_advisory_unlock($1, hashtext($2))`, [
      IMPORT_LOCK_CLASS,
      importId,
    ]);
    await client.query(
      `SELECT set_config(name, reset_val, false) FROM pg_settings
        WHERE name IN ('statement_timeout', 'client_connection_check_interval')`,
    );
  }

  /**
   * The apply's phase for pollers, from the pool beside the import's transaction. Fire-and-forget,
   * and skipped while requests wait for a connection: they go first (the phase is only a hint). A
   * late report never moves an import back nor touches a finished one.
   */
  reportPhase(tenantId: string, importId: string, phase: ApplyPhase): void {
    if (this.pool.waitingCount > 0) return;
    void this.pool
      .query(
        `UPDATE imports SET phase = $3, updated_at = now()
          WHERE tenant_id = $1 AND id = $2 AND status = 'running'
            AND array_position($4::text[], phase) < array_position($4::text[], $3::text)`,
        [tenantId, importId, phase, PHASES],
      )
      .catch(() => undefined);
  }

  /** Forgets an upload that failed: its staging table and its row. */
  async discard(tenantId: string, importId: string): Promise<void> {
    await this.pool.query(`DROP TABLE IF EXISTS ${stagingTable(importId)}`);
    await this.pool.query(`DELETE FROM imports WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      importId,
    ]);
  }

  async find(tenantId: string, importId: string): Promise<ImportRow | undefined> {
    const { rows } = await this.pool.query<ImportRow>(
      `SELECT id, status, phase, rows_total, rows_done, created, updated, unchanged, errors,
              error_count, created_at, finished_at
         FROM imports WHERE tenant_id = $1 AND id = $2`,
      [tenantId, importId],
    );
    return rows[0];
  }

  /**
   * Cancels the statement running on backend `pid` from a new connection (the pool may be busy),
   * a second at most.
   */
  async cancel(pid: number): Promise<void> {
    const canceller = new Client({
      ...(this.pool.options as ClientConfig),
      connectionTimeoutMillis: 1000,
      statement_timeout: 1000,
    });
    try {
      await canceller.connect();
      await canceller.query(`SELECT pg_cancel_backend($1)`, [pid]);
    } finally {
      await canceller.end().catch(() => undefined);
    }
  }

  /** Every import not finished yet, of every tenant (the sweep's candidates). */
  async unfinished(): Promise<{ tenant_id: string; id: string }[]> {
    const { rows } = await this.pool.query<{ tenant_id: string; id: string }>(
      `SELECT tenant_id, id FROM imports WHERE status IN ('queued', 'running')`,
    );
    return rows;
  }

  /**
   * Fails the import with `errors` if its owner lock is free (its process is gone), holding that
   * lock while it does, so never under a live owner; whether it did.
   */
  async failIfAbandoned(tenantId: string, importId: string, errors: ImportError[]) {
    const client = await checkOut(this.pool);
    try {
      await client.query('BEGIN');
      const {
        rows: [{ free }],
      } = await client.query<{ free: boolean }>(
        `SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS free`,
        [IMPORT_LOCK_CLASS, importId],
      );
      let failed = false;
      if (free) {
        const { rowCount } = await client.query(
          `UPDATE imports SET status = 'failed', phase = 'done', rows_done = 0, created = 0,
                  updated = 0, unchanged = 0, errors = $3, error_count = 1, updated_at = now(),
                  finished_at = now()
            WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
          [tenantId, importId, JSON.stringify(errors)],
        );
        failed = Boolean(rowCount);
      }
      await client.query('COMMIT');
      return failed;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The staging tables of finished imports (the ones failed by a sweep, or a dead owner's). */
  async leftoverStagingTables(): Promise<string[]> {
    const { rows } = await this.pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c
         JOIN imports i ON c.relname = 'import_rows_' || lower(substr(i.id, 5))
        WHERE c.relname LIKE 'import\\_rows\\_%' AND c.relkind = 'r'
          AND c.relnamespace = current_schema()::regnamespace
          AND i.status IN ('succeeded', 'failed')`,
    );
    return rows.map((r) => r.name);
  }

  /**
   * Drops a leftover staging table unless something still holds it (a dead owner's backend still
   * finishing a statement): then a later sweep drops it.
   */
  async dropLeftover(name: string): Promise<void> {
    const client = await checkOut(this.pool);
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL lock_timeout = '2s'`);
      await client.query(`DROP TABLE IF EXISTS ${name}`);
      await client.query('COMMIT');
    } catch {
      await client.query('ROLLBACK').catch(() => undefined);
    } finally {
      client.release();
    }
  }

  /** docs/privacy.md: erased values copied into this table's texts, replaced. */
  @PersonalData('redact', 'imports')
  redactPersonal(tenantId: string, values: string[]): Promise<number> {
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'imports',
      key: ['tenant_id', 'id'],
      columns: { errors: 'jsonb' },
    });
  }
}
