import { SetMetadata } from '@nestjs/common';

export const RETENTION_JOB = 'housekeeping:retention';

/** How a retention job is declared (`@Retention(name)`). */
export interface RetentionJobOptions {
  /** Its key in the housekeeping report (a job that answers several counts names each). */
  name: string;
  /**
   * Jobs run in ascending order (0 by default): a job whose rows others refer to runs after them,
   * so that one housekeeping run clears both (the outbox's events after webhooks' deliveries).
   */
  order?: number;
}

/** What a retention job answers: how many rows it deleted, or so many of each kind. */
export type RetentionResult = number | Record<string, number>;

/**
 * Marks a method of a feature's provider as one of its retention jobs: it deletes what its feature
 * no longer needs (its own tables only, in bounded batches, safe to run twice at once) and answers
 * how many rows went. HousekeepingService finds every such method at start-up and calls them on
 * each run; it writes no table itself (docs/architecture.md, "Module boundaries").
 */
export const Retention = (name: string, options: Omit<RetentionJobOptions, 'name'> = {}) =>
  SetMetadata(RETENTION_JOB, { name, ...options } satisfies RetentionJobOptions);
