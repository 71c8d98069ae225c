import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';
import { TenantEntity } from '../../tenants/tenant.entity';
import { messageId } from './mail-sources';

export type NotificationStatus = 'queued' | 'sent' | 'failed' | 'suppressed';

/** A row of the delivery log. */
export interface NotificationRow {
  tenant_id: string;
  id: string;
  type: string;
  recipient: string;
  member_id: string | null;
  source_id: string | null;
  period_end: Date | null;
  status: NotificationStatus;
  to_address: string;
  subject: string | null;
  message_id: string;
  data: Record<string, unknown>;
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
  created_at: Date;
}

/** A digest's item. */
export interface DigestItem {
  type: string;
  occurred_at: Date;
  data: Record<string, unknown>;
}

const COLUMNS = `n.tenant_id, n.id, n.type, n.recipient, n.member_id, n.source_id, n.period_end,
  n.status, n.to_address, n.subject, n.message_id, n.data, n.attempts, n.last_error, n.sent_at,
  n.created_at`;

/**
 * The delivery log (`notifications`): claims, outcomes, digests, the staff's list and resend,
 * and the suppressed addresses. A claim is a lease: it moves `next_attempt_at` past the attempt's
 * end, so a worker killed mid-attempt leaves the mail due again once the lease lapses, and an
 * outcome is written only while `attempts` is still the claim's (webhooks' idea, engine/).
 */
@Injectable()
export class NotificationLogRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Claims up to `limit` due queued mails of any tenant, for `leaseMs`. */
  async claim(limit: number, leaseMs: number): Promise<NotificationRow[]> {
    // An UPDATE … RETURNING answers [rows, count] through TypeORM.
    const [rows]: [NotificationRow[], number] = await this.tx.manager.query(
      `UPDATE notifications n
          SET attempts = n.attempts + 1,
              next_attempt_at = now() + make_interval(secs => $2),
              updated_at = now()
         FROM (SELECT tenant_id, id FROM notifications
                WHERE status = 'queued' AND next_attempt_at <= now()
                ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) d
        WHERE n.tenant_id = d.tenant_id AND n.id = d.id
       RETURNING ${COLUMNS}`,
      [limit, leaseMs / 1000],
    );
    return rows;
  }

  /**
   * The outcome of attempt `attempt`: `sent`, a retry at `retryAt`, or settled as failed or
   * suppressed; nothing if another claim has taken the mail since.
   */
  async record(
    row: Pick<NotificationRow, 'tenant_id' | 'id' | 'attempts'>,
    outcome: {
      status: NotificationStatus;
      subject: string | null;
      error: string | null;
      retryAt?: Date;
    },
  ): Promise<void> {
    await this.tx.manager.query(
      `UPDATE notifications
          SET status = $4, subject = coalesce($5, subject), last_error = $6,
              sent_at = CASE WHEN $4 = 'sent' THEN now() ELSE sent_at END,
              next_attempt_at = coalesce($7, next_attempt_at), updated_at = now()
        WHERE tenant_id = $1 AND id = $2 AND attempts = $3 AND status = 'queued'`,
      [
        row.tenant_id,
        row.id,
        row.attempts,
        outcome.status,
        outcome.subject,
        outcome.error,
        outcome.retryAt ?? null,
      ],
    );
  }

  /** A tenant by id (mails are claimed across tenants; their settings render them). */
  tenant(tenantId: string): Promise<TenantEntity | null> {
    return this.tx.manager.getRepository(TenantEntity).findOneBy({ id: tenantId });
  }

  async isSuppressed(tenantId: string, email: string): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `SELECT 1 FROM mail_suppressions WHERE tenant_id = $1 AND email = lower($2)`,
      [tenantId, email],
    );
    return rows.length > 0;
  }

  async suppress(tenantId: string, email: string, reason: string): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO mail_suppressions (tenant_id, email, reason) VALUES ($1, lower($2), $3)
       ON CONFLICT DO NOTHING`,
      [tenantId, email, reason.slice(0, 500)],
    );
  }

  /** Clears a suppression; whether there was one. */
  async unsuppress(tenantId: string, email: string): Promise<boolean> {
    const [, count]: [unknown, number] = await this.tx.manager.query(
      `DELETE FROM mail_suppressions WHERE tenant_id = $1 AND email = lower($2)`,
      [tenantId, email],
    );
    return count > 0;
  }

  /**
   * Writes the digests that are due: for each member with waiting items, one digest per period
   * (the tenant's last digest hour passed, or `now` when forced) taking every item that occurred
   * before its end, in one transaction (the caller's), each with a Message-ID of its member and
   * period. Answers how many were written.
   */
  async makeDigests(
    host: string,
    forced: { tenantId: string } | null,
    newIds: () => string,
  ): Promise<number> {
    const due: { tenant_id: string; member_id: string; period_end: Date; to_address: string }[] =
      await this.tx.manager.query(
        `SELECT i.tenant_id, i.member_id, p.period_end, m.email AS to_address
           FROM tenants t
          CROSS JOIN LATERAL (SELECT CASE WHEN $1::text IS NOT NULL THEN date_trunc('milliseconds', now())
                  ELSE date_trunc('day', now() - make_interval(hours => h.hour)) + make_interval(hours => h.hour)
                  END AS period_end
                FROM (SELECT coalesce((t.notifications->>'digest_hour_utc')::int, 8) AS hour) h) p
           JOIN notification_items i
             ON i.tenant_id = t.id AND i.digest_id IS NULL AND i.occurred_at < p.period_end
           JOIN members m ON m.tenant_id = i.tenant_id AND m.id = i.member_id
          WHERE ($1::text IS NULL OR t.id = $1) AND m.email IS NOT NULL
          GROUP BY i.tenant_id, i.member_id, p.period_end, m.email`,
        [forced?.tenantId ?? null],
      );
    if (!due.length) return 0;
    const ids = due.map(() => newIds());
    const made: { tenant_id: string; id: string; recipient: string; period_end: Date }[] =
      await this.tx.manager.query(
        `INSERT INTO notifications (tenant_id, id, type, recipient, member_id, period_end, status,
                                    to_address, message_id, created_at, updated_at)
         SELECT d.tenant_id, d.id, 'digest', d.member_id, d.member_id, d.period_end,
                CASE WHEN EXISTS (SELECT 1 FROM mail_suppressions s
                                   WHERE s.tenant_id = d.tenant_id AND s.email = lower(d.to_address))
                     THEN 'suppressed' ELSE 'queued' END,
                d.to_address, d.message_id, now(), now()
           FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[])
                AS d(tenant_id, id, member_id, period_end, to_address, message_id)
         ON CONFLICT DO NOTHING
         RETURNING tenant_id, id, recipient, period_end`,
        [
          due.map((d) => d.tenant_id),
          ids,
          due.map((d) => d.member_id),
          due.map((d) => d.period_end),
          due.map((d) => d.to_address),
          due.map((d) =>
            messageId(host, 'digest', d.tenant_id, d.member_id, d.period_end.toISOString()),
          ),
        ],
      );
    if (!made.length) return 0;
    await this.tx.manager.query(
      `UPDATE notification_items i SET digest_id = d.id
         FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[])
              AS d(tenant_id, id, member_id, period_end)
        WHERE i.tenant_id = d.tenant_id AND i.member_id = d.member_id
          AND i.digest_id IS NULL AND i.occurred_at < d.period_end`,
      [
        made.map((d) => d.tenant_id),
        made.map((d) => d.id),
        made.map((d) => d.recipient),
        made.map((d) => d.period_end),
      ],
    );
    return made.length;
  }

  /** A digest's items, oldest first. */
  digestItems(tenantId: string, digestId: string): Promise<DigestItem[]> {
    return this.tx.manager.query(
      `SELECT type, occurred_at, data FROM notification_items
        WHERE tenant_id = $1 AND digest_id = $2 ORDER BY occurred_at, source_id`,
      [tenantId, digestId],
    );
  }

  /** The log, newest first, filtered. */
  async list(
    tenantId: string,
    filter: { memberId?: string; status?: string; type?: string },
    page: { limit: number; offset: number },
  ): Promise<{ rows: NotificationRow[]; total: number }> {
    const where = `n.tenant_id = $1 AND ($2::text IS NULL OR n.member_id = $2)
      AND ($3::text IS NULL OR n.status = $3) AND ($4::text IS NULL OR n.type = $4)`;
    const params = [tenantId, filter.memberId ?? null, filter.status ?? null, filter.type ?? null];
    const rows: NotificationRow[] = await this.tx.manager.query(
      `SELECT ${COLUMNS} FROM notifications n WHERE ${where}
        ORDER BY n.created_at DESC, n.id DESC LIMIT $5 OFFSET $6`,
      [...params, page.limit, page.offset],
    );
    const [{ total }]: { total: number }[] = await this.tx.manager.query(
      `SELECT count(*)::int AS total FROM notifications n WHERE ${where}`,
      params,
    );
    return { rows, total };
  }

  async find(tenantId: string, id: string): Promise<NotificationRow | undefined> {
    const rows: NotificationRow[] = await this.tx.manager.query(
      `SELECT ${COLUMNS} FROM notifications n WHERE n.tenant_id = $1 AND n.id = $2`,
      [tenantId, id],
    );
    return rows[0];
  }

  /** Queues a mail again at once (same Message-ID); its attempts go on counting. */
  async requeue(tenantId: string, id: string): Promise<void> {
    await this.tx.manager.query(
      `UPDATE notifications SET status = 'queued', next_attempt_at = now(), last_error = NULL,
              updated_at = now()
        WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id],
    );
  }
}
