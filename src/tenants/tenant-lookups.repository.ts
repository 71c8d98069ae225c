import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import type { LookupKind } from './tenant-lookups';

/** `tenant_lookups` (tenant-lookups.ts says what it holds and why). */
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
