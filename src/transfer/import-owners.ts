import type { Logger } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { checkOut } from '../database/checkout';
import type { ImportError } from './import-rows';

/**
 * How often worker processes look for imports whose owner is gone (sweepAbandoned). The owner of
 * a running import holds a session advisory lock on it (class IMPORT_LOCK_CLASS, key
 * hashtext(import id)) on the import's connection, from before the import row exists until its
 * final status is written; PostgreSQL drops the lock the moment that connection ends, so a
 * process that was killed, crashed or lost its database leaves a `running` row whose lock is free.
 */
export const IMPORT_SWEEP_MS = 60_000;
const IMPORT_LOCK_CLASS = 21;
export const INTERRUPTED: ImportError = {
  line: 0,
  code: 'import_interrupted',
  message:
    'the process running the import stopped before it finished; nothing was written: import the file again',
};

/**
 * Who runs which import: the owner locks of this process's imports, and the sweep that fails
 * the imports whose owner is gone (ImportsService runs both). The owner lock is taken on the
 * import's own connection, the one its statements and its transaction run on (one connection per
 * import, from its upload to its final status: it never waits for a second one while holding it).
 */
export class ImportOwners {
  constructor(
    private readonly pool: () => Pool,
    private readonly logger: Logger,
  ) {}

  /** Takes the owner lock of a new import on its connection, kept until disown() or its end. */
  async own(client: PoolClient, importId: string): Promise<void> {
    await client.query(`SELECT pg_advisory_lock($1, hashtext($2))`, [IMPORT_LOCK_CLASS, importId]);
  }

  /** Gives the lock up; a connection that fails here is discarded by the caller (the lock with it). */
  async disown(client: PoolClient, importId: string): Promise<void> {
    await client.query(`SELECT pg_advisory_unlock($1, hashtext($2))`, [
      IMPORT_LOCK_CLASS,
      importId,
    ]);
  }

  /**
   * Ends `failed` (error `import_interrupted`, line 0) every queued or running import whose owner
   * lock is free: its process is gone, and with it the apply's transaction (rolled back: nothing
   * was written). Drops its staging table. Answers how many. Any process may run it, several at
   * once: an import is failed only while this sweep holds its lock, so never under a live owner.
   */
  async sweepAbandoned(): Promise<number> {
    const { rows } = await this.pool().query<{ tenant_id: string; id: string }>(
      `SELECT tenant_id, id FROM imports WHERE status IN ('queued', 'running')`,
    );
    let swept = 0;
    for (const { tenant_id: tenantId, id } of rows) {
      const client = await checkOut(this.pool());
      try {
        await client.query('BEGIN');
        const {
          rows: [{ free }],
        } = await client.query<{ free: boolean }>(
          `SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS free`,
          [IMPORT_LOCK_CLASS, id],
        );
        if (free) {
          const { rowCount } = await client.query(
            `UPDATE imports SET status = 'failed', phase = 'done', rows_done = 0, created = 0,
                    updated = 0, unchanged = 0, errors = $3, error_count = 1, updated_at = now(),
                    finished_at = now()
              WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
            [tenantId, id, JSON.stringify([INTERRUPTED])],
          );
          if (rowCount) {
            swept++;
            this.logger.warn({ importId: id, tenantId }, 'import abandoned by its process: failed');
          }
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }
    // Staging tables of finished imports (the ones just failed, or whose owner died past its
    // final status): each dropped unless something still holds it (a dead owner's backend still
    // finishing a statement), then a later sweep drops it.
    const { rows: leftovers } = await this.pool().query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c
         JOIN imports i ON c.relname = 'import_rows_' || lower(substr(i.id, 5))
        WHERE c.relname LIKE 'import\\_rows\\_%' AND c.relkind = 'r'
          AND c.relnamespace = current_schema()::regnamespace
          AND i.status IN ('succeeded', 'failed')`,
    );
    for (const { name } of leftovers) {
      const client = await checkOut(this.pool());
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
    return swept;
  }
}
