import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { Actor, AuditActor } from '../common/access/actor';
import { newUlid } from '../common/ids';
import { AuditService } from '../audit/audit.service';
import { AppConfig } from '../config/app-config';
import { GroupsService } from '../groups/groups.service';
import { type ApplyPhase, MemberImportService } from '../members/member-import.service';
import { ImportOwners } from './import-owners';
import { ImportRun, type ImportProgress, MAX_IMPORT_ERRORS } from './import-run';
import { ImportSlots } from './import-slots';
import { RowChecker, UnknownColumnsError, type ImportFormat } from './import-rows';
import { ImportsRepository } from './imports.repository';
import {
  ImportNotFoundError,
  ImportsStoppingError,
  UnknownImportColumnsError,
} from './transfer.errors';
import type { ImportStatusResponse } from './dto/import.response';

export { MAX_IMPORT_BYTES, MAX_IMPORT_ERRORS, type ImportProgress } from './import-run';

export type ImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** How long shutdown waits for stopped imports to write their status before it drops them. */
const ABORT_WAIT_MS = 3_000;

/**
 * Member imports (docs/import-export.md): the file is streamed through a parser into an unlogged
 * staging table with COPY (never held in memory), then validated and applied set-wise in one
 * transaction by the members' bulk writer (members/member-import.service.ts). One import runs as an
 * ImportRun (import-run.ts); this service starts, counts and stops them. The HTTP route answers
 * 202 once the body is staged and the apply runs on in this process; the CLI waits for it.
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
  private readonly active = new Map<string, ImportRun>();
  private readonly owners: ImportOwners;
  private readonly slots: ImportSlots;
  private stopping = false;

  constructor(
    private readonly imports: ImportsRepository,
    private readonly audit: AuditService,
    config: AppConfig,
    private readonly members: MemberImportService,
    private readonly groups: GroupsService,
  ) {
    this.owners = new ImportOwners(imports, this.logger);
    this.slots = new ImportSlots(config.imports.concurrency, config.imports.tenantConcurrency);
  }

  /**
   * Fails every import whose owner is gone (import-owners.ts); answers how many. Worker processes
   * run it every IMPORT_SWEEP_MS (import-sweep.worker.ts).
   */
  sweepAbandoned(): Promise<number> {
    return this.owners.sweepAbandoned();
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
    actor: AuditActor,
    onProgress: (progress: ImportProgress) => void = () => undefined,
  ): Promise<{ importId: string; checker: RowChecker }> {
    if (this.stopping) throw new ImportsStoppingError();
    const releaseSlot = this.slots.take(tenantId);
    const importId = `imp_${newUlid()}`;
    const run = await ImportRun.open(this.imports, tenantId, importId, releaseSlot, this.logger);
    this.active.set(importId, run);
    const checker = new RowChecker(MAX_IMPORT_ERRORS);
    try {
      await run.stage(format, body, actor, checker, onProgress);
    } catch (error) {
      this.active.delete(importId);
      await run.forget();
      if (run.aborted) throw new ImportsStoppingError();
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
   * Validates and applies a staged import in one transaction on its connection (ImportRun.apply);
   * with any error nothing is written and the import ends `failed`. Answers its final status.
   */
  async apply(
    tenantId: string,
    importId: string,
    checker: RowChecker,
    actor: AuditActor,
    onPhase: (phase: ApplyPhase) => void = () => undefined,
  ): Promise<ImportStatusResponse> {
    const run = this.active.get(importId);
    if (!run || run.tenantId !== tenantId) throw new Error(`import ${importId} is not staged here`);
    let counts;
    try {
      counts = await run.apply(this.members, checker, onPhase, this.groups);
    } finally {
      this.active.delete(importId);
      await run.finish();
    }
    // Holding no connection any more: the audit entry and the answer.
    if (counts) {
      await this.audit.record(
        tenantId,
        actor,
        'members.imported',
        { type: 'import', id: importId },
        { rows: checker.stats.rows, ...counts },
      );
    }
    if (run.aborted) throw new ImportsStoppingError();
    return (await this.status(tenantId, importId))!;
  }

  async status(tenantId: string, importId: string): Promise<ImportStatusResponse | null> {
    const row = await this.imports.find(tenantId, importId);
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
    await Promise.all(jobs.map((job) => job.abort()));
    const waited = await Promise.race([
      Promise.all(jobs.map((job) => job.done)).then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ABORT_WAIT_MS).unref()),
    ]);
    if (!waited) for (const job of jobs) job.end(true);
    await Promise.allSettled([...this.running]);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
