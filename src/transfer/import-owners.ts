import type { Logger } from '@nestjs/common';
import type { ImportError } from './import-rows';
import type { ImportsRepository } from './imports.repository';

/**
 * How often worker processes look for imports whose owner is gone (sweepAbandoned). The owner of
 * a running import holds a session advisory lock on it (ImportsRepository.own: class 21, key
 * hashtext(import id)) on the import's connection, from before the import row exists until its
 * final status is written; PostgreSQL drops the lock the moment that connection ends, so a
 * process that was killed, crashed or lost its database leaves a `running` row whose lock is free.
 */
export const IMPORT_SWEEP_MS = 60_000;
export const INTERRUPTED: ImportError = {
  line: 0,
  code: 'import_interrupted',
  message:
    'the process running the import stopped before it finished; nothing was written: import the file again',
};

/**
 * The sweep that fails the imports whose owner is gone (ImportsService runs it). The owner lock is
 * taken on the import's own connection, the one its statements and its transaction run on (one
 * connection per import, from its upload to its final status: it never waits for a second one
 * while holding it; import-run.ts).
 */
export class ImportOwners {
  constructor(
    private readonly imports: ImportsRepository,
    private readonly logger: Logger,
  ) {}

  /**
   * Ends `failed` (error `import_interrupted`, line 0) every queued or running import whose owner
   * lock is free: its process is gone, and with it the apply's transaction (rolled back: nothing
   * was written). Drops its staging table. Answers how many. Any process may run it, several at
   * once: an import is failed only while this sweep holds its lock, so never under a live owner.
   */
  async sweepAbandoned(): Promise<number> {
    let swept = 0;
    for (const { tenant_id: tenantId, id } of await this.imports.unfinished()) {
      if (await this.imports.failIfAbandoned(tenantId, id, [INTERRUPTED])) {
        swept++;
        this.logger.warn({ importId: id, tenantId }, 'import abandoned by its process: failed');
      }
    }
    // Staging tables of finished imports (the ones just failed, or whose owner died past its
    // final status), each dropped unless something still holds it.
    for (const name of await this.imports.leftoverStagingTables()) {
      await this.imports.dropLeftover(name);
    }
    return swept;
  }
}
