import { Injectable } from '@nestjs/common';
import {
  customerMatchParams,
  customerMatchSql,
  PersonalData,
  type CustomerMatch,
} from '../common/privacy/personal-data.decorator';
import { deletePerTenantInBatches, DELETE_BATCH } from '../database/batched-delete';
import { redactColumns } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';
import { Retention } from '../housekeeping/retention.decorator';

/**
 * The conversions' part in docs/privacy.md: a customer's client IP and user agent cleared from
 * their conversions (found through their leads before the leads' contacts go, hence order 0),
 * personal values redacted inside conversions' notes, and client data past the tenant's
 * `retention.client_data_days` cleared.
 */
@Injectable()
export class ConversionPrivacyRepository {
  constructor(private readonly tx: TransactionHost) {}

  @PersonalData('customer', 'conversions', 0)
  async eraseCustomer(
    tenantId: string,
    match: CustomerMatch,
  ): Promise<{ count: number; values: string[] }> {
    const [rows]: [{ client_ip: string | null; client_user_agent: string | null }[], number] =
      await this.tx.manager.query(
        `WITH found AS (
           SELECT c.tenant_id, c.id, host(c.client_ip) AS client_ip, c.client_user_agent
             FROM conversions c JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
            WHERE c.tenant_id = $1 AND ${customerMatchSql('l')}
              FOR UPDATE OF c)
         UPDATE conversions c SET client_ip = NULL, client_user_agent = NULL
           FROM found WHERE c.tenant_id = found.tenant_id AND c.id = found.id
         RETURNING found.client_ip, found.client_user_agent`,
        [tenantId, ...customerMatchParams(match)],
      );
    const values = rows.flatMap((r) => [r.client_ip, r.client_user_agent]);
    return { count: rows.length, values: values.filter((v): v is string => !!v) };
  }

  @PersonalData('redact', 'conversions')
  async redact(tenantId: string, values: string[]): Promise<number> {
    // The user agent seen with an erased IP is the same person's: both go.
    await this.tx.manager.query(
      `UPDATE conversions SET client_ip = NULL, client_user_agent = NULL
        WHERE tenant_id = $1 AND client_ip IS NOT NULL AND host(client_ip) = ANY($2::text[])`,
      [tenantId, values],
    );
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'conversions',
      key: ['tenant_id', 'id'],
      columns: {
        client_ip: 'inet',
        client_user_agent: 'text',
        reward_note: 'text',
        reverse_reason: 'text',
      },
    });
  }

  /** docs/privacy.md, "Retention": client IPs and user agents past the tenant's days. */
  @Retention('conversionClientData')
  clearClientData(): Promise<number> {
    return deletePerTenantInBatches(
      this.tx.manager,
      `WITH doomed AS (
         SELECT c.tenant_id, c.id FROM conversions c JOIN tenants t ON t.id = c.tenant_id
          WHERE c.tenant_id = $1
            AND (c.client_ip IS NOT NULL OR c.client_user_agent IS NOT NULL)
            AND c.created_at < now() - make_interval(
                  days => coalesce((t.retention->>'client_data_days')::int, 90))
          LIMIT ${DELETE_BATCH}
       ), cleared AS (
         UPDATE conversions c SET client_ip = NULL, client_user_agent = NULL
           FROM doomed WHERE c.tenant_id = doomed.tenant_id AND c.id = doomed.id RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM cleared`,
      [],
    );
  }
}
