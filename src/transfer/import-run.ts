import type { Logger } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AuditActor } from '../common/access/actor';
import {
  type ApplyCounts,
  type ApplyPhase,
  LostInsertRace,
  type MemberImportService,
} from '../members/member-import.service';
import type { GroupsService } from '../groups/groups.service';
import { INTERRUPTED } from './import-owners';
import {
  csvToStaging,
  ndjsonToStaging,
  type ImportError,
  type ImportFormat,
  type RowChecker,
} from './import-rows';
import { stagingTable, type ImportsRepository } from './imports.repository';
import { ImportPayloadTooLargeError } from './transfer.errors';

/** docs/import-export.md: bodies up to 1 GiB; the first 1000 errors are kept. */
export const MAX_IMPORT_BYTES = 1024 ** 3;
export const MAX_IMPORT_ERRORS = 1000;

const FAILED: ImportError = {
  line: 0,
  code: 'import_failed',
  message: 'the import stopped on an unexpected error; nothing was written: import the file again',
};

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

/** Raised inside an import stopped by shutdown (its body destroyed, its statement cancelled). */
class ImportInterrupted extends Error {
  constructor() {
    super('the import was stopped: the service is shutting down');
  }
}

/**
 * One import as it runs in this process (ImportsService starts and stops them): its one pool
 * connection (owner lock, staging, transaction and final status all run on it, so it never waits
 * for a second one while holding it), its body while it is read, and how shutdown stops it.
 */
export class ImportRun {
  aborted = false;
  private body?: Readable;
  private releaseConnection?: (destroy?: boolean) => void;
  readonly done: Promise<void>;
  private markDone!: () => void;

  private constructor(
    readonly tenantId: string,
    readonly importId: string,
    private readonly client: PoolClient,
    private readonly imports: ImportsRepository,
    private readonly releaseSlot: () => void,
    private readonly logger: Logger,
  ) {
    this.done = new Promise((resolve) => (this.markDone = resolve));
    this.releaseConnection = (destroy) => client.release(destroy);
  }

  /** Takes the import's connection; the slot is given back if none comes. */
  static async open(
    imports: ImportsRepository,
    tenantId: string,
    importId: string,
    releaseSlot: () => void,
    logger: Logger,
  ): Promise<ImportRun> {
    try {
      // A lost connection is a lost owner lock: the import may then be swept (failed) by any process.
      const client = await imports.connect((error) =>
        logger.warn({ err: error, importId }, 'import connection lost'),
      );
      return new ImportRun(tenantId, importId, client, imports, releaseSlot, logger);
    } catch (error) {
      releaseSlot();
      throw error;
    }
  }

  /** Reads the whole body into the import's new staging table, its row `running`. */
  async stage(
    format: ImportFormat,
    body: Readable,
    actor: AuditActor,
    checker: RowChecker,
    onProgress: (progress: ImportProgress) => void,
  ): Promise<void> {
    this.body = body;
    let lastReport = 0;
    const progress = () => {
      const now = Date.now();
      if (now - lastReport < 500) return;
      lastReport = now;
      const rows = checker.stats.rows;
      onProgress({ phase: 'staging', rowsTotal: rows, rowsDone: rows, bytes: checker.stats.bytes });
    };
    this.check();
    await this.imports.prepareSession(this.client);
    // The owner lock first: a sweep never sees this import without it (sweepAbandoned).
    await this.imports.own(this.client, this.importId);
    await this.imports.start(this.client, this.tenantId, this.importId, format, actor);
    this.check();
    const copy = this.imports.copyIntoStaging(this.client, this.importId);
    const parse = format === 'csv' ? csvToStaging(checker) : ndjsonToStaging(checker);
    await pipeline(body, byteLimit(MAX_IMPORT_BYTES, progress), parse, copy);
    this.body = undefined;
    await this.imports.staged(this.client, this.tenantId, this.importId, checker.stats.rows);
  }

  /**
   * After a failed upload: the connection, which may be mid-COPY, is discarded, and the owner lock
   * with it. Then, holding no connection, the import is forgotten (or, failing that, swept later).
   */
  async forget(): Promise<void> {
    this.body = undefined;
    this.end(true);
    await this.imports
      .discard(this.tenantId, this.importId)
      .catch((discardError: unknown) =>
        this.logger.warn(
          { err: discardError, importId: this.importId },
          'could not discard a failed upload',
        ),
      )
      .finally(() => this.settle());
  }

  /**
   * Validates and applies the staged rows in one transaction on the import's connection, through
   * the members' bulk writer; with any error nothing is written and the import ends `failed`. A
   * lost race with a concurrent upsert inserting one of the file's external ids is run again (the
   * winner is then an existing member). Answers the counts if the import succeeded. Rethrows an
   * unexpected error (the import failed) unless the import was stopped.
   */
  async apply(
    members: MemberImportService,
    checker: RowChecker,
    onPhase: (phase: ApplyPhase) => void,
    groups: GroupsService,
  ): Promise<ApplyCounts | undefined> {
    const { client, tenantId, importId } = this;
    try {
      for (let attempt = 1; ; attempt++) {
        let result;
        try {
          this.check();
          await this.imports.begin(client);
          // docs/partners.md: the groups the file names, once per import.
          const fileGroups = await groups.forImport(tenantId, this.guarded, stagingTable(importId));
          result = await members.applyStaged(
            this.guarded,
            tenantId,
            stagingTable(importId),
            MAX_IMPORT_ERRORS,
            async (phase) => {
              this.check();
              onPhase(phase);
              this.imports.reportPhase(tenantId, importId, phase);
            },
            fileGroups.staged,
          );
          if (result.ok && checker.stats.errorCount === 0) {
            const moved = await fileGroups.moved(result.groupMoves);
            // The outcome commits with the members: a process killed at any point before leaves
            // a running import and no member (swept: import_interrupted), never the reverse.
            await this.imports.succeed(client, tenantId, importId, result.counts);
            await this.imports.commit(client);
            moved();
          } else await this.imports.rollback(client);
        } catch (error) {
          await this.imports.rollback(client).catch(() => undefined);
          const raced =
            error instanceof LostInsertRace || (error as { code?: string }).code === '23503';
          if (raced && attempt < 3 && !this.aborted) continue;
          throw error;
        }
        if (result.ok && checker.stats.errorCount === 0) return result.counts;
        const setErrors = result.ok ? { errors: [], errorCount: 0 } : result;
        const errors = [...checker.stats.errors, ...setErrors.errors]
          .sort((a, b) => a.line - b.line)
          .slice(0, MAX_IMPORT_ERRORS);
        await this.imports.fail(
          client,
          tenantId,
          importId,
          errors,
          checker.stats.errorCount + setErrors.errorCount,
        );
        return undefined;
      }
    } catch (error) {
      const reason = this.aborted ? INTERRUPTED : FAILED;
      // On its connection while it still holds the owner lock; else (the connection lost) once
      // it is given up, from the pool, or by the sweep.
      await this.imports.fail(client, tenantId, importId, [reason], 1).catch(async () => {
        this.end(true);
        await this.imports.fail(undefined, tenantId, importId, [reason], 1).catch(() => undefined);
      });
      if (!this.aborted) throw error;
      return undefined;
    }
  }

  /**
   * Drops the staging table and the owner lock on the import's connection, then gives it back
   * (the lock goes with a connection that fails here; a later sweep drops the table). The import
   * has then done all it will do.
   */
  async finish(): Promise<void> {
    if (!this.ended) {
      try {
        await this.imports.finish(this.client, this.importId);
        this.end();
      } catch {
        this.end(true);
      }
    }
    this.settle();
  }

  /**
   * Shutdown: the body being read is destroyed, and the statement running on the import's
   * connection now, if any, is cancelled (a second at most); the next one is refused (guarded).
   */
  async abort(): Promise<void> {
    this.aborted = true;
    this.body?.destroy(new ImportInterrupted());
    const pid = (this.client as unknown as { processID?: number }).processID;
    if (!pid) return;
    await this.imports
      .cancel(pid)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, importId: this.importId }, 'could not cancel an import'),
      );
  }

  /** The connection for the apply: each statement refused once the import is stopped. */
  private get guarded(): PoolClient {
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

  private check(): void {
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
  private settle(): void {
    this.end(true);
    this.markDone();
  }

  private get ended(): boolean {
    return this.releaseConnection === undefined;
  }
}
