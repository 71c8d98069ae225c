import { Injectable, Logger } from '@nestjs/common';
import { AdminSessionsService } from '../access/admin-sessions.service';
import { AppConfig } from '../config/app-config';
import { DELETE_BATCH as BATCH } from '../database/batched-delete';
import { TransactionHost } from '../database/transaction-host';
import { IdempotencyKeysService } from '../idempotency/idempotency-keys.service';
import { SignInService } from '../sign-in-popup/sign-in.service';

export interface HousekeepingReport {
  events: number;
  idempotencyKeys: number;
  sessions: number;
  consentTokens: number;
  signInCodes: number;
  adminSessions: number;
}

/**
 * Deletes what the service no longer needs: events (with their webhook deliveries and attempts)
 * older than EVENT_RETENTION_DAYS (docs/webhooks.md: 30 days) unless a delivery is still pending,
 * and the expired idempotency keys, popup sessions, consent tokens, admin sessions and sign-in
 * codes (kept a day past expiry: the per-hour sign-in limit counts them). Bounded batches, each its
 * own short transaction; running twice at once is harmless.
 */
@Injectable()
export class HousekeepingService {
  private readonly logger = new Logger(HousekeepingService.name);

  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly idempotency: IdempotencyKeysService,
    private readonly signIn: SignInService,
    private readonly adminSessions: AdminSessionsService,
  ) {}

  async run(): Promise<HousekeepingReport> {
    const events = await this.expiredEvents();
    const idempotencyKeys = await this.idempotency.deleteExpired();
    const signIn = await this.signIn.deleteExpired();
    const report: HousekeepingReport = {
      events,
      idempotencyKeys,
      sessions: signIn.sessions,
      consentTokens: signIn.consentTokens,
      adminSessions: await this.adminSessions.deleteExpired(),
      signInCodes: signIn.signInCodes,
    };
    if (Object.values(report).some((n) => n > 0)) {
      this.logger.log({ deleted: report }, 'Housekeeping deleted expired rows');
    }
    return report;
  }

  /** Events past retention, tenant by tenant through ix_events_tenant_occurred. */
  private async expiredEvents(): Promise<number> {
    const tenants: { id: string }[] = await this.tx.manager.query(`SELECT id FROM tenants`);
    let total = 0;
    for (const { id } of tenants) {
      for (;;) {
        const [{ deleted }]: { deleted: number }[] = await this.tx.manager.query(
          `WITH doomed AS (
             SELECT e.tenant_id, e.id FROM events e
              WHERE e.tenant_id = $1
                AND e.occurred_at < now() - make_interval(days => $2)
                AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                                 WHERE d.tenant_id = e.tenant_id AND d.event_id = e.id
                                   AND d.status = 'pending')
              ORDER BY e.occurred_at LIMIT ${BATCH}
           ), attempts AS (
             DELETE FROM webhook_attempts a USING doomed
              WHERE a.tenant_id = doomed.tenant_id AND a.event_id = doomed.id
           ), deliveries AS (
             DELETE FROM webhook_deliveries d USING doomed
              WHERE d.tenant_id = doomed.tenant_id AND d.event_id = doomed.id
           ), events AS (
             DELETE FROM events e USING doomed
              WHERE e.tenant_id = doomed.tenant_id AND e.id = doomed.id RETURNING 1
           )
           SELECT count(*)::int AS deleted FROM events`,
          [id, this.config.eventRetentionDays],
        );
        total += deleted;
        if (deleted < BATCH) break;
      }
    }
    return total;
  }
}
