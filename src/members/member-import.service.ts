import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { MemberImportRepository } from './member-import.repository';

export { GROUP_MOVES_TABLE } from './member-import.repository';

export interface ApplyCounts {
  created: number;
  updated: number;
  unchanged: number;
}

/** A staged row that cannot be applied (transfer/ reports it as an import error of its line). */
export interface StagedRowError {
  line: number;
  code:
    | 'duplicate_external_id'
    | 'referrer_not_found'
    | 'referral_cycle'
    | 'referrer_conflict'
    | 'group_not_found';
  message: string;
}

export type ApplyResult =
  | { ok: true; counts: ApplyCounts; groupMoves: number }
  | { ok: false; errors: StagedRowError[]; errorCount: number };

/**
 * The tenant's groups a file names (docs/partners.md), resolved once per import by transfer/:
 * the slugs with their ids, and the `default` group's id for the rows that name none.
 */
export interface StagedGroups {
  defaultId: string;
  slugs: string[];
  ids: string[];
}

export type ApplyPhase = 'checking' | 'tree' | 'writing';

/** A concurrent upsert inserted one of the file's external ids after we looked: run again. */
export class LostInsertRace extends Error {}

/**
 * The members' bulk writer: the CSV import (transfer/) stages a file's rows with COPY and hands
 * them here, so that members and service users, their referral tree and its counters are written
 * by the members feature alone, with the same statements as ever (docs/architecture.md, "Module
 * boundaries"; the statements are member-import.repository.ts'). The staging table has the
 * columns `line`, `member_id`, `service_user_id` (ids minted while staging), `external_id`,
 * `full_name`, `email`, `role`, `joined_at` and `referrer_external_id` (transfer/import-rows.ts,
 * STAGING_COLUMNS).
 */
@Injectable()
export class MemberImportService {
  constructor(private readonly repo: MemberImportRepository) {}

  /**
   * Validates and applies staged rows set-wise on `client`, inside its transaction
   * (docs/import-export.md, "How an import is applied"). Under the tenant's tree lock (the one
   * every upsert that sets a referrer takes) and row locks on the members the file names:
   *
   * 1. `r`: one row per external id: its member (existing, locked, or new with the staged ids),
   *    the requested referrer resolved against the file and the tenant, and the old field values.
   * 2. Set-wise checks: duplicates, unknown referrers, a referrer other than the one in force,
   *    self-references; then cycles, as the members the top-down walk of the new forest never
   *    reaches.
   * 3. `g`, the affected trees (every tree a new edge touches, and the new members), with the new
   *    edges; `d`, their depth and root top-down, then `c`, the downline counts and deepest depths
   *    bottom-up, one insert per level: exactly the counters the one-by-one upserts keep.
   * 4. One INSERT of the new members (service users first), one UPDATE of the tree columns that
   *    changed, one UPDATE of the fields that changed.
   */
  async applyStaged(
    client: PoolClient,
    tenantId: string,
    staging: string,
    maxErrors: number,
    onPhase: (phase: ApplyPhase) => Promise<void>,
    groups: StagedGroups = { defaultId: '', slugs: [], ids: [] },
  ): Promise<ApplyResult> {
    const errors: StagedRowError[] = [];
    let errorCount = 0;
    const report = (found: { errors: StagedRowError[]; count: number }) => {
      errors.push(...found.errors);
      errorCount += found.count;
    };

    await onPhase('checking');
    await this.repo.prepare(client, tenantId);
    // Duplicates: every occurrence after the first is an error; only the first goes on.
    if (await this.repo.indexStaging(client, staging)) {
      report(await this.repo.removeDuplicates(client, staging, maxErrors));
    }
    await this.repo.resolveRows(client, tenantId, staging, groups);
    report(await this.repo.referrerErrors(client, maxErrors));
    await this.repo.markNewEdges(client);

    await onPhase('tree');
    // Whatever the walk from the roots never reached hangs on a cycle (each member is reached at
    // most once: when the walk reached them all, there is none to look for).
    if ((await this.repo.walkTrees(client, tenantId)) > 0) {
      report(await this.repo.cycleErrors(client, maxErrors));
    }
    if (errorCount) return { ok: false, errors, errorCount };
    await this.repo.countDownlines(client);

    await onPhase('writing');
    const { created, updated, total } = await this.repo.counts(client);
    if ((await this.repo.insertNew(client, tenantId, groups.defaultId)) !== created) {
      throw new LostInsertRace();
    }
    // Into an empty tenant nothing existed: the two updates would only scan for nothing.
    if (created === total && !(await this.repo.anyExisting(client))) {
      return { ok: true, counts: { created, updated: 0, unchanged: 0 }, groupMoves: 0 };
    }
    await this.repo.updateExisting(client, tenantId);
    return {
      ok: true,
      counts: { created, updated, unchanged: total - created - updated },
      // docs/partners.md: existing members a row names another group for move to it.
      groupMoves: await this.repo.moveGroups(client, tenantId),
    };
  }
}
