import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationShutdown,
} from '@nestjs/common';
import { Client, type ClientConfig, type Pool, type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DataSource } from 'typeorm';
import type { Actor } from '../common/access/actor';
import { newUlid } from '../common/ids';
import { AuditService } from '../audit/audit.service';
import { AppConfig } from '../config/app-config';
import { checkOut } from '../database/checkout';
import { rawPool } from '../database/raw-pool';
import { LONG_STATEMENT_TIMEOUT } from '../database/timeouts';
import {
  type ApplyCounts,
  type ApplyPhase,
  LostInsertRace,
  MemberImportService,
} from '../members/member-import.service';
import { ImportOwners, INTERRUPTED } from './import-owners';
import { ImportSlots } from './import-slots';
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
  ImportsStoppingError,
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

/** How long shutdown waits for stopped imports to write their status before it drops them. */
const ABORT_WAIT_MS = 3_000;
const PHASES = ['staging', 'checking', 'tree', 'writing', 'done'];

/** Raised inside an import stopped by shutdown (its body destroyed, its statement cancelled). */
class ImportInterrupted extends Error {
  constructor() {
    super('the import was stopped: the service is shutting down');
  }
}

/**
 * One running import: its one pool connection (owner lock, staging, transaction and final status
 * all run on it), its body while it is read, and how shutdown stops it.
 */
class RunningImport {
  aborted = false;
  body?: Readable;
  private releaseConnection?: (destroy?: boolean) => void;
  readonly done: Promise<void>;
  private markDone!: () => void;

  constructor(
    readonly tenantId: string,
    readonly importId: string,
    readonly client: PoolClient,
    private readonly releaseSlot: () => void,
  ) {
    this.done = new Promise((resolve) => (this.markDone = resolve));
    this.releaseConnection = (destroy) => client.release(destroy);
  }

  /** The connection for the apply: each statement refused once the import is stopped. */
  get guarded(): PoolClient {
    return new Proxy(this.client, {
      get: (target, key) => {
        if (key === 'query')
          return (...args: unknown[]): unknown =>
            this.aborted
              ? Promise.reject(new ImportInterrupted())
              : Reflect.apply(target.query, target, args);
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
  }

  check(): void {
    if (this.aborted) throw new ImportInterrupted();
  }

  /** Gives the connection back (destroyed when it may be mid-statement) and the slot; once. */
  end(destroy = false): void {
    const release = this.releaseConnection;
    if (!release) return;
    this.releaseConnection = undefined;
    release(destroy);
    this.releaseSlot();
  }

  /** The import has done all it will do (shutdown waits for this). */
  settle(): void {
    this.end(true);
    this.markDone();
  }

  get ended(): boolean {
    return this.releaseConnection === undefined;
  }
}

/**
 * Member imports (docs/import-export.md): the file is streamed through a parser into an unlogged
 * staging table with COPY (never held in memory), then validated and applied set-wise in one
 * transaction by the members' bulk writer (members/member-import.service.ts). The HTTP route answers 202 once the body is staged and the
 * apply runs on in this process; the CLI waits for it.
 *
 * Each import holds exactly one pool connection, from before its body is read to its final
 * status, and never asks for another while it holds it (its phase reports are fire-and-forget),
 * and at most IMPORT_CONCURRENCY run at once (IMPORT_TENANT_CONCURRENCY of one tenant): imports
 * can never take the whole pool, nor wait on each other for it. Shutdown stops them.
 */
@Injectable()
export class ImportsService implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(ImportsService.name);
  private readonly running = new Set<Promise<unknown>>();
  private readonly active = new Map<string, RunningImport>();
  private readonly owners = new ImportOwners(() => this.pool, this.logger);
  private readonly slots: ImportSlots;
  private stopping = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
    private readonly members: MemberImportService,
  ) {
    this.slots = new ImportSlots(config.imports.concurrency, config.imports.tenantConcurrency);
  }

  /**
   * Fails every import whose owner is gone (import-owners.ts); answers how many. Worker processes
   * run it every IMPORT_SWEEP_MS (import-sweep.worker.ts).
   */
  sweepAbandoned(): Promise<number> {
    return this.owners.sweepAbandoned();
  }

  private get pool(): Pool {
    return rawPool(this.dataSource);
  }

  /**
   * Reads the whole body into a new import's staging table. Beyond the concurrency limits: 429
   * too_many_imports before anything is read. An unknown column: 400, and neither the import nor
   * its staging table is kept. Answers the import id, its status `running`.
   */
  async stage(
    tenantId: string,
    format: ImportFormat,
    body: Readable,
    actor: Actor | { type: 'system'; name: string },
    onProgress: (progress: ImportProgress) => void = () => undefined,
  ): Promise<{ importId: string; checker: RowChecker }> {
    if (this.stopping) throw new ImportsStoppingError();
    const releaseSlot = this.slots.take(tenantId);
    const importId = `imp_${newUlid()}`;
    const staging = stagingTable(importId);
    let job: RunningImport;
    try {
      // A lost connection is a lost owner lock: the import may then be swept (failed) by any process.
      const client = await checkOut(this.pool, (error) =>
        this.logger.warn({ err: error, importId }, 'import connection lost'),
      );
      job = new RunningImport(tenantId, importId, client, releaseSlot);
    } catch (error) {
      releaseSlot();
      throw error;
    }
    this.active.set(importId, job);
    job.body = body;
    const { client } = job;
    const checker = new RowChecker(MAX_IMPORT_ERRORS);
    let lastReport = 0;
    const progress = () => {
      const now = Date.now();
      if (now - lastReport < 500) return;
      lastReport = now;
      const rows = checker.stats.rows;
      onProgress({ phase: 'staging', rowsTotal: rows, rowsDone: rows, bytes: checker.stats.bytes });
    };
    try {
      job.check();
      // The import's statements may rightly run for minutes (a million rows): its own timeout.
      // And its backend checks every second that this process is still there, even in the middle
      // of a statement or a lock wait (PostgreSQL 14+): a killed process's import ends at once,
      // and with it its owner lock, for the sweep.
      await client.query(
        `SELECT set_config('statement_timeout', $1, false),
                (SELECT set_config(name, '1000', false) FROM pg_settings
                  WHERE name = 'client_connection_check_interval')`,
        [LONG_STATEMENT_TIMEOUT],
      );
      // The owner lock first: a sweep never sees this import without it (sweepAbandoned).
      await this.owners.own(client, importId);
      await client.query(
        `INSERT INTO imports (tenant_id, id, status, format, actor_type, actor_name)
         VALUES ($1, $2, 'running', $3, $4, $5)`,
        [tenantId, importId, format, actor.type, actor.name],
      );
      await client.query(
        `CREATE UNLOGGED TABLE ${staging} (line integer NOT NULL, member_id text NOT NULL,
           service_user_id text NOT NULL, external_id text NOT NULL, full_name text, email text,
           role text, referrer_external_id text, joined_at timestamptz)`,
      );
      job.check();
      const copy = client.query(
        copyFrom(`COPY ${staging} (${STAGING_COLUMNS.join(', ')}) FROM STDIN`),
      );
      const parse = format === 'csv' ? csvToStaging(checker) : ndjsonToStaging(checker);
      await pipeline(body, byteLimit(MAX_IMPORT_BYTES, progress), parse, copy);
      job.body = undefined;
      await client.query(
        `UPDATE imports SET rows_total = $3, phase = 'checking', updated_at = now()
          WHERE tenant_id = $1 AND id = $2`,
        [tenantId, importId, checker.stats.rows],
      );
    } catch (error) {
      // The connection may be mid-COPY: discarded, and the owner lock with it. Then, holding no
      // connection, the import is forgotten (or, failing that, swept later).
      job.body = undefined;
      this.active.delete(importId);
      job.end(true);
      await this.discard(tenantId, importId)
        .catch((discardError: unknown) =>
          this.logger.warn({ err: discardError, importId }, 'could not discard a failed upload'),
        )
        .finally(() => job.settle());
      if (job.aborted) throw new ImportsStoppingError();
      if (error instanceof UnknownColumnsError)
        throw new UnknownImportColumnsError(error.columns, error.total);
      throw error;
    }
    return { importId, checker };
  }

  /** Runs the apply in the background (the HTTP route); shutdown stops it (beforeApplicationShutdown). */
  applyInBackground(tenantId: string, importId: string, checker: RowChecker, actor: Actor): void {
    const job = this.apply(tenantId, importId, checker, actor).catch((error: unknown) => {
      if (error instanceof ImportsStoppingError) return; // failed: import_interrupted
      this.logger.error({ err: error, importId }, 'import failed unexpectedly');
    });
    this.running.add(job);
    void job.finally(() => this.running.delete(job));
  }

  /**
   * Validates and applies a staged import in one transaction on its connection; with any error
   * nothing is written and the import ends `failed`. A lost race with a concurrent upsert
   * inserting one of the file's external ids is run again (the winner is then an existing member).
   */
  async apply(
    tenantId: string,
    importId: string,
    checker: RowChecker,
    actor: Actor | { type: 'system'; name: string },
    onPhase: (phase: ApplyPhase) => void = () => undefined,
  ): Promise<ImportStatusResponse> {
    const job = this.active.get(importId);
    if (!job || job.tenantId !== tenantId) throw new Error(`import ${importId} is not staged here`);
    const staging = stagingTable(importId);
    const rows = checker.stats.rows;
    const { client } = job;
    let outcome: { ok: true; counts: ApplyCounts } | { ok: false } | undefined;
    try {
      for (let attempt = 1; ; attempt++) {
        let result;
        try {
          job.check();
          await client.query('BEGIN');
          result = await this.members.applyStaged(
            job.guarded,
            tenantId,
            staging,
            MAX_IMPORT_ERRORS,
            async (phase) => {
              job.check();
              onPhase(phase);
              this.reportPhase(tenantId, importId, phase);
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
          if (raced && attempt < 3 && !job.aborted) continue;
          throw error;
        }
        if (result.ok && checker.stats.errorCount === 0) {
          outcome = { ok: true, counts: result.counts };
        } else {
          outcome = { ok: false };
          const setErrors = result.ok ? { errors: [], errorCount: 0 } : result;
          const errors = [...checker.stats.errors, ...setErrors.errors]
            .sort((a, b) => a.line - b.line)
            .slice(0, MAX_IMPORT_ERRORS);
          await this.fail(
            client,
            tenantId,
            importId,
            errors,
            checker.stats.errorCount + setErrors.errorCount,
          );
        }
        break;
      }
    } catch (error) {
      const reason = job.aborted ? INTERRUPTED : FAILED;
      // On its connection while it still holds the owner lock; else (the connection lost) once
      // it is given up, from the pool, or by the sweep.
      await this.fail(client, tenantId, importId, [reason], 1).catch(async () => {
        job.end(true);
        await this.fail(this.pool, tenantId, importId, [reason], 1).catch(() => undefined);
      });
      if (!job.aborted) throw error;
    } finally {
      await this.finish(job, staging);
      job.settle();
    }
    // Holding no connection any more: the audit entry and the answer.
    if (outcome?.ok) {
      await this.audit.record(
        tenantId,
        actor,
        'members.imported',
        { type: 'import', id: importId },
        { rows, ...outcome.counts },
      );
    }
    if (job.aborted) throw new ImportsStoppingError();
    return (await this.status(tenantId, importId))!;
  }

  /** Drops the staging table and the owner lock on the import's connection, then gives it back. */
  private async finish(job: RunningImport, staging: string): Promise<void> {
    this.active.delete(job.importId);
    if (job.ended) return;
    try {
      await job.client.query(`DROP TABLE IF EXISTS ${staging}`);
      await this.owners.disown(job.client, job.importId);
      await job.client.query(
        `SELECT set_config(name, reset_val, false) FROM pg_settings
          WHERE name IN ('statement_timeout', 'client_connection_check_interval')`,
      );
      job.end();
    } catch {
      job.end(true); // the lock goes with the connection; a later sweep drops the table
    }
  }

  /**
   * The apply's phase for pollers, from the pool beside the import's transaction (which nobody
   * else sees before its commit). Fire-and-forget: the import never waits for a second connection,
   * a late report never moves an import back nor touches a finished one, and none is sent while
   * other requests queue for a connection.
   */
  private reportPhase(tenantId: string, importId: string, phase: ApplyPhase): void {
    // Skipped while requests wait for a connection: they go first (the phase is only a hint).
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

  /**
   * Never over a succeeded import: its status committed with its members, and an error after
   * that (the audit entry) does not undo them.
   */
  private async fail(
    on: Pool | PoolClient,
    tenantId: string,
    importId: string,
    errors: ImportError[],
    count: number,
  ) {
    await on.query(
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

  /**
   * Shutdown (SIGTERM) stops every import of this process at once, so the HTTP server can close
   * and the process exits within its grace period whatever the imports do: no new one starts
   * (503), an upload still being read has its request destroyed (the client sees the connection
   * close; nothing is kept), and an apply has its running statement cancelled and ends `failed`
   * with `import_interrupted`, nothing written. An import that has not let go of its connection
   * after ABORT_WAIT_MS loses it (its transaction rolls back; the sweep ends it later).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    const jobs = [...this.active.values()];
    if (!jobs.length) return;
    this.logger.warn({ imports: jobs.map((j) => j.importId) }, 'shutdown: stopping imports');
    await Promise.all(jobs.map((job) => this.abort(job)));
    const waited = await Promise.race([
      Promise.all(jobs.map((job) => job.done)).then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ABORT_WAIT_MS).unref()),
    ]);
    if (!waited) for (const job of jobs) job.end(true);
    await Promise.allSettled([...this.running]);
  }

  private async abort(job: RunningImport): Promise<void> {
    job.aborted = true;
    job.body?.destroy(new ImportInterrupted());
    // The statement running on the import's connection now, if any: cancelled from a new
    // connection (the pool may be busy), a second at most; the next one is refused (guarded).
    const pid = (job.client as unknown as { processID?: number }).processID;
    if (!pid) return;
    const canceller = new Client({
      ...(this.pool.options as ClientConfig),
      connectionTimeoutMillis: 1000,
      statement_timeout: 1000,
    });
    try {
      await canceller.connect();
      await canceller.query(`SELECT pg_cancel_backend($1)`, [pid]);
    } catch (error) {
      this.logger.warn({ err: error, importId: job.importId }, 'could not cancel an import');
    } finally {
      await canceller.end().catch(() => undefined);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}

/** The per-import staging table (ids are ULIDs: only [0-9a-z] once lower-cased). */
function stagingTable(importId: string): string {
  return `import_rows_${importId.slice(4).toLowerCase()}`;
}
