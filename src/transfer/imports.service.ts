import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DataSource } from 'typeorm';
import type { Actor } from '../common/access/actor';
import { newUlid } from '../common/ids';
import { AuditService } from '../audit/audit.service';
import { AppConfig } from '../config/app-config';
import { checkOut } from '../database/checkout';
import {
  type ApplyPhase,
  LostInsertRace,
  MemberImportService,
} from '../members/member-import.service';
import { IMPORT_SWEEP_MS, ImportOwners } from './import-owners';
import {
  csvToStaging,
  ndjsonToStaging,
  RowChecker,
  STAGING_COLUMNS,
  UnknownColumnsError,
  type ImportError,
  type ImportFormat,
} from './import-rows';
import {
  ImportNotFoundError,
  ImportPayloadTooLargeError,
  UnknownImportColumnsError,
} from './transfer.errors';
import type { ImportStatusResponse } from './dto/import.response';

/** docs/import-export.md: bodies up to 1 GiB; the first 1000 errors are kept. */
export const MAX_IMPORT_BYTES = 1024 ** 3;
export const MAX_IMPORT_ERRORS = 1000;

const FAILED: ImportError = {
  line: 0,
  code: 'import_failed',
  message: 'the import stopped on an unexpected error; nothing was written: import the file again',
};

export type ImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';
export interface ImportProgress {
  phase: 'staging' | ApplyPhase | 'done';
  rowsTotal: number;
  rowsDone: number;
  bytes: number;
}

/** Stops a body once it passes `max` bytes. */
function byteLimit(max: number, onBytes: (n: number) => void): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > max) return callback(new ImportPayloadTooLargeError());
      onBytes(seen);
      callback(null, chunk);
    },
  });
}

/**
 * Member imports (docs/import-export.md): the file is streamed through a parser into an unlogged
 * staging table with COPY (never held in memory), then validated and applied set-wise in one
 * transaction by the members' bulk writer (members/member-import.service.ts). The HTTP route answers 202 once the body is staged and the
 * apply runs on in this process; the CLI waits for it.
 */
@Injectable()
export class ImportsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ImportsService.name);
  private readonly running = new Set<Promise<unknown>>();
  private readonly owners = new ImportOwners(() => this.pool, this.logger);
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
    private readonly members: MemberImportService,
  ) {}

  /** Worker processes sweep abandoned imports every IMPORT_SWEEP_MS (the CLI and API-only do not). */
  onApplicationBootstrap(): void {
    if (this.config.processRole === 'api') return;
    this.sweepTimer = setInterval(
      () =>
        void this.sweepAbandoned().catch((error: unknown) =>
          this.logger.warn({ err: error }, 'import sweep failed'),
        ),
      IMPORT_SWEEP_MS,
    );
    this.sweepTimer.unref();
  }

  /** Fails every import whose owner is gone (import-owners.ts); answers how many. */
  sweepAbandoned(): Promise<number> {
    return this.owners.sweepAbandoned();
  }

  private get pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  /**
   * Reads the whole body into a new import's staging table. An unknown column: 400, and neither
   * the import nor its staging table is kept. Answers the import id, its status `running`.
   */
  async stage(
    tenantId: string,
    format: ImportFormat,
    body: Readable,
    actor: Actor | { type: 'system'; name: string },
    onProgress: (progress: ImportProgress) => void = () => undefined,
  ): Promise<{ importId: string; checker: RowChecker }> {
    const importId = `imp_${newUlid()}`;
    const staging = stagingTable(importId);
    // The owner lock first: a sweep never sees this import without it (sweepAbandoned).
    await this.owners.own(importId);
    await this.pool
      .query(
        `INSERT INTO imports (tenant_id, id, status, format, actor_type, actor_name)
       VALUES ($1, $2, 'running', $3, $4, $5)`,
        [tenantId, importId, format, actor.type, actor.name],
      )
      .catch(async (error: unknown) => {
        await this.owners.disown(importId);
        throw error;
      });
    const checker = new RowChecker(MAX_IMPORT_ERRORS);
    const client = await checkOut(this.pool);
    let lastReport = 0;
    const progress = () => {
      const now = Date.now();
      if (now - lastReport < 500) return;
      lastReport = now;
      const rows = checker.stats.rows;
      onProgress({ phase: 'staging', rowsTotal: rows, rowsDone: rows, bytes: checker.stats.bytes });
      void this.pool
        .query(
          `UPDATE imports SET rows_total = greatest(rows_total, $3), updated_at = now()
            WHERE tenant_id = $1 AND id = $2 AND phase = 'staging'`,
          [tenantId, importId, rows],
        )
        .catch(() => undefined);
    };
    try {
      await client.query(
        `CREATE UNLOGGED TABLE ${staging} (line integer NOT NULL, member_id text NOT NULL,
           service_user_id text NOT NULL, external_id text NOT NULL, full_name text, email text,
           role text, referrer_external_id text, joined_at timestamptz)`,
      );
      const copy = client.query(
        copyFrom(`COPY ${staging} (${STAGING_COLUMNS.join(', ')}) FROM STDIN`),
      );
      const parse = format === 'csv' ? csvToStaging(checker) : ndjsonToStaging(checker);
      await pipeline(body, byteLimit(MAX_IMPORT_BYTES, progress), parse, copy);
    } catch (error) {
      client.release(true); // the connection may be mid-COPY: not reused
      await this.discard(tenantId, importId).finally(() => this.owners.disown(importId));
      if (error instanceof UnknownColumnsError) throw new UnknownImportColumnsError(error.columns);
      throw error;
    }
    client.release();
    await this.pool.query(
      `UPDATE imports SET rows_total = $3, phase = 'checking', updated_at = now()
        WHERE tenant_id = $1 AND id = $2`,
      [tenantId, importId, checker.stats.rows],
    );
    return { importId, checker };
  }

  /** Runs the apply in the background (the HTTP route); shutdown waits for it. */
  applyInBackground(tenantId: string, importId: string, checker: RowChecker, actor: Actor): void {
    const job = this.apply(tenantId, importId, checker, actor).catch((error: unknown) =>
      this.logger.error({ err: error, importId }, 'import failed unexpectedly'),
    );
    this.running.add(job);
    void job.finally(() => this.running.delete(job));
  }

  /**
   * Validates and applies a staged import in one transaction; with any error nothing is written
   * and the import ends `failed`. A lost race with a concurrent upsert inserting one of the file's
   * external ids is run again (the winner is then an existing member).
   */
  async apply(
    tenantId: string,
    importId: string,
    checker: RowChecker,
    actor: Actor | { type: 'system'; name: string },
    onPhase: (phase: ApplyPhase) => void = () => undefined,
  ): Promise<ImportStatusResponse> {
    const staging = stagingTable(importId);
    const rows = checker.stats.rows;
    try {
      for (let attempt = 1; ; attempt++) {
        const client = await checkOut(this.pool);
        let result;
        try {
          await client.query('BEGIN');
          result = await this.members.applyStaged(
            client,
            tenantId,
            staging,
            MAX_IMPORT_ERRORS,
            async (phase) => {
              onPhase(phase);
              await this.pool.query(
                `UPDATE imports SET phase = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2`,
                [tenantId, importId, phase],
              );
            },
          );
          if (result.ok && checker.stats.errorCount === 0) {
            // The outcome commits with the members: a process killed at any point before leaves
            // a running import and no member (swept: import_interrupted), never the reverse.
            await client.query(
              `UPDATE imports SET status = 'succeeded', phase = 'done', rows_done = rows_total,
                      created = $3, updated = $4, unchanged = $5, updated_at = now(),
                      finished_at = now()
                WHERE tenant_id = $1 AND id = $2`,
              [
                tenantId,
                importId,
                result.counts.created,
                result.counts.updated,
                result.counts.unchanged,
              ],
            );
            await client.query('COMMIT');
          } else await client.query('ROLLBACK');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          const raced =
            error instanceof LostInsertRace || (error as { code?: string }).code === '23503';
          if (raced && attempt < 3) continue;
          throw error;
        } finally {
          client.release();
        }
        if (result.ok && checker.stats.errorCount === 0) {
          await this.audit.record(
            tenantId,
            actor,
            'members.imported',
            { type: 'import', id: importId },
            {
              rows: rows,
              ...result.counts,
            },
          );
        } else {
          const setErrors = result.ok ? { errors: [], errorCount: 0 } : result;
          const errors = [...checker.stats.errors, ...setErrors.errors]
            .sort((a, b) => a.line - b.line)
            .slice(0, MAX_IMPORT_ERRORS);
          await this.fail(
            tenantId,
            importId,
            errors,
            checker.stats.errorCount + setErrors.errorCount,
          );
        }
        break;
      }
    } catch (error) {
      await this.fail(tenantId, importId, [FAILED], 1);
      throw error;
    } finally {
      await this.pool.query(`DROP TABLE IF EXISTS ${staging}`).catch(() => undefined);
      await this.owners.disown(importId);
    }
    return (await this.status(tenantId, importId))!;
  }

  /**
   * Never over a succeeded import: its status committed with its members, and an error after
   * that (the audit entry) does not undo them.
   */
  private async fail(tenantId: string, importId: string, errors: ImportError[], count: number) {
    await this.pool.query(
      `UPDATE imports SET status = 'failed', phase = 'done', errors = $3, error_count = $4,
              updated_at = now(), finished_at = now()
        WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
      [tenantId, importId, JSON.stringify(errors), count],
    );
  }

  private async discard(tenantId: string, importId: string): Promise<void> {
    await this.pool.query(`DROP TABLE IF EXISTS ${stagingTable(importId)}`);
    await this.pool.query(`DELETE FROM imports WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      importId,
    ]);
  }

  async status(tenantId: string, importId: string): Promise<ImportStatusResponse | null> {
    const {
      rows: [row],
    } = await this.pool.query(
      `SELECT id, status, phase, rows_total, rows_done, created, updated, unchanged, errors,
              error_count, created_at, finished_at
         FROM imports WHERE tenant_id = $1 AND id = $2`,
      [tenantId, importId],
    );
    if (!row) return null;
    return {
      import_id: row.id,
      status: row.status,
      phase: row.phase,
      rows_total: row.rows_total,
      rows_done: row.rows_done,
      created: row.created,
      updated: row.updated,
      unchanged: row.unchanged,
      error_count: row.error_count,
      errors: row.errors,
      created_at: row.created_at.toISOString(),
      finished_at: row.finished_at ? row.finished_at.toISOString() : null,
    };
  }

  async get(tenantId: string, importId: string): Promise<ImportStatusResponse> {
    const found = /^imp_[0-9A-HJKMNP-TV-Z]{26}$/.test(importId)
      ? await this.status(tenantId, importId)
      : null;
    if (!found) throw new ImportNotFoundError(importId);
    return found;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweepTimer);
    await Promise.allSettled([...this.running]);
  }
}

/** The per-import staging table (ids are ULIDs: only [0-9a-z] once lower-cased). */
function stagingTable(importId: string): string {
  return `import_rows_${importId.slice(4).toLowerCase()}`;
}
