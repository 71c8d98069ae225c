import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';

/** pg_advisory_xact_lock key of the demo seeding: processes starting together seed once. */
export const DEMO_LOCK_KEY = 7_237_001;

/** When a seeded row happened: a member, lead, conversion, link or a bonus's source, by id. */
export interface SeededAt {
  id: string;
  at: Date;
}

/**
 * The demo's own SQL, and the one place that moves time (docs/architecture.md, "Decisions and
 * their reasons", "The demo's history"): everything is seeded now through the features' services,
 * then these statements move the demo tenant's rows into the past, so that the widgets look
 * lived in. The demo is a development module (AppModule leaves it out under
 * NODE_ENV=production), so the services that run in production have no way to rewrite the past;
 * test/architecture/table-writers.spec.ts lets this file, and no other, write the timestamps
 * (`…_at` columns only) of other features' tables.
 */
@Injectable()
export class DemoRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Waits for the demo seeding's lock; released when the caller's transaction ends. */
  async lock(): Promise<void> {
    await this.tx.manager.query('SELECT pg_advisory_xact_lock($1)', [DEMO_LOCK_KEY]);
  }

  /**
   * Moves the tenant's seeded rows to the times given, in the order they happened: members by
   * join date; leads, conversions (a reversal 9 days after) and links by their ids; bonuses by
   * their sources' ids, their approval, rejection and reversal after them (3, 3 and 9 days, never
   * in the future) and their due date their grace period after them, a pending one's kept a day
   * ahead so the grace sweep does not settle the demo at once. Ids of other kinds are ignored.
   */
  async moveIntoPast(
    tenantId: string,
    members: SeededAt[],
    others: SeededAt[],
    gracePeriodHours: number,
  ): Promise<void> {
    const q = (sql: string, times: SeededAt[]) =>
      this.tx.manager.query(sql, [
        tenantId,
        times.map((t) => t.id),
        times.map((t) => t.at.toISOString()),
      ]);
    await q(
      `UPDATE members AS m SET created_at = v.at, updated_at = v.at
         FROM unnest($2::text[], $3::timestamptz[]) AS v(id, at)
        WHERE m.tenant_id = $1 AND m.id = v.id`,
      members,
    );
    await q(
      `UPDATE leads AS l SET created_at = v.at, updated_at = v.at
         FROM unnest($2::text[], $3::timestamptz[]) AS v(id, at)
        WHERE l.tenant_id = $1 AND l.id = v.id`,
      others,
    );
    await q(
      `UPDATE conversions AS c SET created_at = v.at,
              reversed_at = CASE WHEN c.reversed_at IS NULL THEN NULL
                                 ELSE LEAST(now(), v.at + interval '9 days') END
         FROM unnest($2::text[], $3::timestamptz[]) AS v(id, at)
        WHERE c.tenant_id = $1 AND c.id = v.id`,
      others,
    );
    await q(
      `UPDATE deeplinks AS d SET created_at = v.at
         FROM unnest($2::text[], $3::timestamptz[]) AS v(id, at)
        WHERE d.tenant_id = $1 AND d.id = v.id`,
      others,
    );
    await q(
      `UPDATE bonuses AS b SET created_at = v.at
         FROM unnest($2::text[], $3::timestamptz[]) AS v(id, at)
        WHERE b.tenant_id = $1 AND b.source_id = v.id`,
      others,
    );
    await this.tx.manager.query(
      `UPDATE bonuses SET
              approved_at = CASE WHEN approved_at IS NULL THEN NULL
                                 ELSE LEAST(now(), created_at + interval '3 days') END,
              rejected_at = CASE WHEN rejected_at IS NULL THEN NULL
                                 ELSE LEAST(now(), created_at + interval '3 days') END,
              reversed_at = CASE WHEN reversed_at IS NULL THEN NULL
                                 ELSE LEAST(now(), created_at + interval '9 days') END,
              due_at = CASE WHEN status = 'pending'
                            THEN GREATEST(created_at + make_interval(hours => $2), now() + interval '1 day')
                            ELSE created_at + make_interval(hours => $2) END
        WHERE tenant_id = $1`,
      [tenantId, gracePeriodHours],
    );
  }
}
