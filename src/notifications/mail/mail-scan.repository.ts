import { Injectable } from '@nestjs/common';
import { deleteInBatches } from '../../database/batched-delete';
import { TransactionHost } from '../../database/transaction-host';

/** Events (or joined members) written within this long before a cursor are read again. */
export const SCAN_OVERLAP_MS = 5 * 60_000;

export interface ScannedEvent {
  tenantId: string;
  id: string;
  occurredAt: Date;
  body: string;
}

export interface JoinedMember {
  tenantId: string;
  id: string;
  referrerMemberId: string;
  fullName: string | null;
  createdAt: Date;
}

export interface Recipient {
  memberId: string | null;
  userId: string | null;
  email: string | null;
  name: string | null;
}

/** A mail or a digest item, ready to be written. */
export interface MailRow {
  id: string;
  type: string;
  recipient: string;
  memberId: string | null;
  sourceId: string;
  to: string;
  messageId: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/**
 * What the notification worker reads from the outbox and `members`, and what it writes for it
 * (docs/notifications.md, "How mail is made"). Reads go tenant by tenant in one statement; a
 * tenant's batch is written in one transaction with the scans that mark its sources read.
 */
@Injectable()
export class MailScanRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Every tenant's unread mailed events since its cursor (less the overlap), oldest first. */
  async events(types: readonly string[], perTenant: number): Promise<ScannedEvent[]> {
    const rows: { tenant_id: string; id: string; occurred_at: Date; body: string }[] =
      await this.tx.manager.query(
        `SELECT t.id AS tenant_id, e.id, e.occurred_at, e.body
           FROM tenants t
           LEFT JOIN notification_cursors c ON c.tenant_id = t.id AND c.stream = 'events'
          CROSS JOIN LATERAL (
                SELECT e.id, e.occurred_at, e.body FROM events e
                 WHERE e.tenant_id = t.id
                   AND e.occurred_at > coalesce(c.scanned_to, t.created_at) - make_interval(secs => $3)
                   AND e.event_type = ANY($1::text[])
                   AND NOT EXISTS (SELECT 1 FROM notification_scans s
                                    WHERE s.tenant_id = e.tenant_id AND s.source_id = e.id)
                 ORDER BY e.occurred_at, e.id LIMIT $2) e`,
        [types, perTenant, SCAN_OVERLAP_MS / 1000],
      );
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      id: r.id,
      occurredAt: r.occurred_at,
      body: r.body,
    }));
  }

  /** Every tenant's unread members who joined with a referrer (`downline.joined`). */
  async joined(perTenant: number): Promise<JoinedMember[]> {
    const rows: {
      tenant_id: string;
      id: string;
      referrer_member_id: string;
      full_name: string | null;
      created_at: Date;
    }[] = await this.tx.manager.query(
      `SELECT t.id AS tenant_id, m.id, m.referrer_member_id, m.full_name, m.created_at
         FROM tenants t
         LEFT JOIN notification_cursors c ON c.tenant_id = t.id AND c.stream = 'members'
        CROSS JOIN LATERAL (
              SELECT m.id, m.referrer_member_id, m.full_name, m.created_at FROM members m
               WHERE m.tenant_id = t.id
                 AND m.created_at > coalesce(c.scanned_to, t.created_at) - make_interval(secs => $2)
                 AND m.referrer_member_id IS NOT NULL
                 AND NOT EXISTS (SELECT 1 FROM notification_scans s
                                  WHERE s.tenant_id = m.tenant_id AND s.source_id = m.id)
               ORDER BY m.created_at, m.id LIMIT $1) m`,
      [perTenant, SCAN_OVERLAP_MS / 1000],
    );
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      id: r.id,
      referrerMemberId: r.referrer_member_id,
      fullName: r.full_name,
      createdAt: r.created_at,
    }));
  }

  /** Members by `usr_…` or `mbr_…`, keyed by both. */
  async members(tenantId: string, refs: string[]): Promise<Map<string, Recipient>> {
    const rows: {
      id: string;
      service_user_id: string;
      email: string | null;
      full_name: string | null;
    }[] = await this.tx.manager.query(
      `SELECT id, service_user_id, email, full_name FROM members
          WHERE tenant_id = $1 AND (service_user_id = ANY($2::text[]) OR id = ANY($2::text[]))`,
      [tenantId, refs],
    );
    const out = new Map<string, Recipient>();
    for (const r of rows) {
      const recipient = {
        memberId: r.id,
        userId: r.service_user_id,
        email: r.email,
        name: r.full_name,
      };
      out.set(r.id, recipient);
      out.set(r.service_user_id, recipient);
    }
    return out;
  }

  /** Applicants by application id (a rejected one has no member). */
  async applicants(tenantId: string, ids: string[]): Promise<Map<string, Recipient>> {
    if (!ids.length) return new Map();
    const rows: { id: string; email: string; full_name: string }[] = await this.tx.manager.query(
      `SELECT id, email, full_name FROM applications WHERE tenant_id = $1 AND id = ANY($2::text[])`,
      [tenantId, ids],
    );
    return new Map(
      rows.map((r) => [r.id, { memberId: null, userId: null, email: r.email, name: r.full_name }]),
    );
  }

  /** The chosen modes of these members, `member|type` → mode. */
  async modes(tenantId: string, memberIds: string[]): Promise<Map<string, string>> {
    if (!memberIds.length) return new Map();
    const rows: { member_id: string; type: string; mode: string }[] = await this.tx.manager.query(
      `SELECT member_id, type, mode FROM notification_preferences
        WHERE tenant_id = $1 AND member_id = ANY($2::text[])`,
      [tenantId, memberIds],
    );
    return new Map(rows.map((r) => [`${r.member_id}|${r.type}`, r.mode]));
  }

  /** The lead's contact name of each bonus source (`lead` or `conversion`), by source id. */
  async leadNames(tenantId: string, sourceIds: string[]): Promise<Map<string, string>> {
    if (!sourceIds.length) return new Map();
    const rows: { source_id: string; name: string }[] = await this.tx.manager.query(
      `SELECT l.id AS source_id, l.contact_name AS name FROM leads l
        WHERE l.tenant_id = $1 AND l.id = ANY($2::text[])
       UNION ALL
       SELECT c.id, l.contact_name FROM conversions c
         JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
        WHERE c.tenant_id = $1 AND c.id = ANY($2::text[])`,
      [tenantId, sourceIds],
    );
    return new Map(rows.map((r) => [r.source_id, r.name]));
  }

  async bountyNames(tenantId: string, ids: string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows: { id: string; name: string }[] = await this.tx.manager.query(
      `SELECT id, name FROM bounties WHERE tenant_id = $1 AND id = ANY($2::text[])`,
      [tenantId, ids],
    );
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /**
   * One tenant's batch, in the caller's transaction: instant mails (suppressed at once if the
   * address is), digest items, the sources marked read, and the cursor moved on. A source read
   * twice writes nothing twice (the unique keys).
   */
  async write(
    tenantId: string,
    stream: 'events' | 'members',
    batch: { mails: MailRow[]; items: MailRow[]; read: string[]; scannedTo: Date },
  ): Promise<void> {
    const { mails, items } = batch;
    if (mails.length)
      await this.tx.manager.query(
        `INSERT INTO notifications (tenant_id, id, type, recipient, member_id, source_id, status,
                                    to_address, message_id, data, created_at, updated_at)
         SELECT $1, m.id, m.type, m.recipient, m.member_id, m.source_id,
                CASE WHEN EXISTS (SELECT 1 FROM mail_suppressions s
                                   WHERE s.tenant_id = $1 AND s.email = lower(m.to_address))
                     THEN 'suppressed' ELSE 'queued' END,
                m.to_address, m.message_id, m.data, now(), now()
           FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                       $8::text[], $9::jsonb[])
                AS m(id, type, recipient, member_id, source_id, to_address, message_id, data)
         ON CONFLICT DO NOTHING`,
        [
          tenantId,
          mails.map((m) => m.id),
          mails.map((m) => m.type),
          mails.map((m) => m.recipient),
          mails.map((m) => m.memberId),
          mails.map((m) => m.sourceId),
          mails.map((m) => m.to),
          mails.map((m) => m.messageId),
          mails.map((m) => JSON.stringify(m.data)),
        ],
      );
    if (items.length)
      await this.tx.manager.query(
        `INSERT INTO notification_items (tenant_id, source_id, member_id, type, occurred_at, data)
         SELECT $1, i.source_id, i.member_id, i.type, i.occurred_at, i.data
           FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::jsonb[])
                AS i(source_id, member_id, type, occurred_at, data)
         ON CONFLICT DO NOTHING`,
        [
          tenantId,
          items.map((i) => i.sourceId),
          items.map((i) => i.memberId),
          items.map((i) => i.type),
          items.map((i) => i.occurredAt),
          items.map((i) => JSON.stringify(i.data)),
        ],
      );
    await this.tx.manager.query(
      `INSERT INTO notification_scans (tenant_id, source_id)
       SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
      [tenantId, batch.read],
    );
    await this.tx.manager.query(
      `INSERT INTO notification_cursors (tenant_id, stream, scanned_to) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, stream)
         DO UPDATE SET scanned_to = greatest(notification_cursors.scanned_to, EXCLUDED.scanned_to)`,
      [tenantId, stream, batch.scannedTo],
    );
  }

  /**
   * Scans of sources read over a day ago, in batches: by then the cursor is long past them, and
   * were one read again, its mail and digest item are there already (the unique keys).
   */
  deleteOldScans(): Promise<number> {
    return deleteInBatches(
      this.tx.manager,
      'notification_scans',
      `scanned_at < now() - interval '1 day'`,
      'tenant_id, source_id',
    );
  }
}
