import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { EntityRows } from '../database/entity-rows';
import { TransactionHost } from '../database/transaction-host';
import { TenantKeyEntity } from './tenant-key.entity';
import { TenantEntity } from './tenant.entity';

@Injectable()
export class TenantKeysRepository {
  private readonly keyRows: EntityRows<TenantKeyEntity>;
  private readonly tenantRows: EntityRows<TenantEntity>;

  constructor(
    private readonly tx: TransactionHost,
    dataSource: DataSource,
  ) {
    this.keyRows = new EntityRows(dataSource, TenantKeyEntity);
    this.tenantRows = new EntityRows(dataSource, TenantEntity);
  }

  private get repo() {
    return this.tx.manager.getRepository(TenantKeyEntity);
  }

  async insert(key: TenantKeyEntity): Promise<void> {
    await this.repo.insert(key);
  }

  countActive(tenantId: string): Promise<number> {
    return this.repo.countBy({ tenantId, revokedAt: IsNull() });
  }

  list(tenantId: string): Promise<TenantKeyEntity[]> {
    return this.repo.find({ where: { tenantId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  find(tenantId: string, keyId: string): Promise<TenantKeyEntity | null> {
    return this.repo.findOneBy({ tenantId, id: keyId });
  }

  /** Revokes an active key; `false` when it was already revoked. */
  async revoke(tenantId: string, keyId: string): Promise<boolean> {
    const result = await this.repo.update(
      { tenantId, id: keyId, revokedAt: IsNull() },
      { revokedAt: () => 'now()' },
    );
    return (result.affected ?? 0) > 0;
  }

  /**
   * The guard's lookup: one read per request, so a revoke takes effect at once. The hash finds its
   * tenant in `tenant_lookups` (tenant-lookups.ts), then the key by (tenant_id, key_hash).
   */
  async findActiveByHash(
    keyHash: string,
  ): Promise<{ key: TenantKeyEntity; tenant: TenantEntity } | null> {
    const [row] = await this.tx.select(
      `SELECT ${this.keyRows.select('k', 'k_')}, ${this.tenantRows.select('t', 't_')}
         FROM tenant_lookups l
         JOIN tenant_keys k ON k.tenant_id = l.tenant_id AND k.key_hash = l.value
         JOIN tenants t ON t.id = k.tenant_id
        WHERE l.kind = 'tenant_key' AND l.value = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    return row
      ? { key: this.keyRows.from(row, 'k_'), tenant: this.tenantRows.from(row, 't_') }
      : null;
  }
}
