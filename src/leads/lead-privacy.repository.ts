import { Injectable } from '@nestjs/common';
import {
  customerMatchParams,
  customerMatchSql,
  PersonalData,
  type CustomerMatch,
} from '../common/privacy/personal-data.decorator';
import { deletePerTenantInBatches, DELETE_BATCH } from '../database/batched-delete';
import { ERASED, redactColumns } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';
import { Retention } from '../housekeeping/retention.decorator';

/**
 * The leads' part in docs/privacy.md: a customer's contact erased (the lead stays, with its
 * status, referrer and money), personal values redacted inside leads' texts, and the customers'
 * client IPs and user agents cleared after the tenant's `retention.client_data_days`.
 */
@Injectable()
export class LeadPrivacyRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** The customer's leads of this tenant: contact, client and metadata cleared. */
  @PersonalData('customer', 'leads', 1)
  async eraseCustomer(
    tenantId: string,
    match: CustomerMatch,
  ): Promise<{ count: number; values: string[] }> {
    const [rows]: [Record<string, string | null>[], number] = await this.tx.manager.query(
      `WITH found AS (
         SELECT l.tenant_id, l.id, l.contact_name, l.contact_email, l.contact_phone,
                host(l.client_ip) AS client_ip, l.client_user_agent,
                l.metadata->>'customer_external_id' AS external_id
           FROM leads l WHERE l.tenant_id = $1 AND ${customerMatchSql('l')}
            FOR UPDATE)
       UPDATE leads l
          SET contact_name = $5, contact_email = NULL, contact_phone = NULL, client_ip = NULL,
              client_user_agent = NULL, metadata = '{}', updated_at = now()
         FROM found WHERE l.tenant_id = found.tenant_id AND l.id = found.id
       RETURNING found.*`,
      [tenantId, ...customerMatchParams(match), ERASED],
    );
    const values = rows.flatMap((r) => [
      r.contact_name,
      r.contact_email,
      r.contact_phone,
      r.client_ip,
      r.client_user_agent,
      r.external_id,
    ]);
    return { count: rows.length, values: values.filter((v): v is string => !!v) };
  }

  /** Values copied into leads' texts: contacts, metadata, risk-signal sentences. */
  @PersonalData('redact', 'leads')
  async redact(tenantId: string, values: string[]): Promise<number> {
    // The user agent seen with an erased IP is the same person's: both go.
    await this.tx.manager.query(
      `UPDATE leads SET client_ip = NULL, client_user_agent = NULL
        WHERE tenant_id = $1 AND client_ip IS NOT NULL AND host(client_ip) = ANY($2::text[])`,
      [tenantId, values],
    );
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'leads',
      key: ['tenant_id', 'id'],
      columns: {
        contact_name: 'text',
        contact_email: 'text',
        contact_phone: 'text',
        client_ip: 'inet',
        client_user_agent: 'text',
        status_reason: 'text',
        metadata: 'jsonb',
        risk_signals: 'jsonb',
      },
    });
  }

  /** docs/privacy.md, "Retention": client IPs and user agents past the tenant's days. */
  @Retention('leadClientData')
  clearClientData(): Promise<number> {
    return deletePerTenantInBatches(
      this.tx.manager,
      `WITH doomed AS (
         SELECT l.tenant_id, l.id FROM leads l JOIN tenants t ON t.id = l.tenant_id
          WHERE l.tenant_id = $1
            AND (l.client_ip IS NOT NULL OR l.client_user_agent IS NOT NULL)
            AND l.created_at < now() - make_interval(
                  days => coalesce((t.retention->>'client_data_days')::int, 90))
          LIMIT ${DELETE_BATCH}
       ), cleared AS (
         UPDATE leads l SET client_ip = NULL, client_user_agent = NULL
           FROM doomed WHERE l.tenant_id = doomed.tenant_id AND l.id = doomed.id RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM cleared`,
      [],
    );
  }
}
