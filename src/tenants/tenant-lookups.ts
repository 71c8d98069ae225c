import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';

/**
 * The values looked up before the tenant is known (docs/operations.md): a Federation API key's hash, a staff
 * token's hash, a short link's code. Each is unique across tenants by `tenant_lookups`' primary
 * key (kind, value) and names its tenant, so the tenant-owned tables keep `tenant_id` in every
 * unique index and can be sharded by tenant, with `tenant_lookups` as a reference table
 * (docs/operations.md, "A tenant-sharded PostgreSQL").
 */
export type LookupKind = 'tenant_key' | 'staff_token' | 'short_code';

/** The constraint a value already taken (by any tenant) violates. */
export const LOOKUP_TAKEN = 'pk_tenant_lookups';

@Injectable()
export class TenantLookupsRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Claims `value` for the tenant; a value already claimed raises 23505 on LOOKUP_TAKEN. */
  async claim(kind: LookupKind, value: string, tenantId: string): Promise<void> {
    await this.tx.manager.query(
      `INSERT INTO tenant_lookups (kind, value, tenant_id) VALUES ($1, $2, $3)`,
      [kind, value, tenantId],
    );
  }
}
