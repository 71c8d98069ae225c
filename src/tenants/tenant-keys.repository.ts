import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { TransactionHost } from '../database/transaction-host';
import { TenantKeyEntity } from './tenant-key.entity';
import { TenantEntity } from './tenant.entity';

@Injectable()
export class TenantKeysRepository {
  constructor(private readonly tx: TransactionHost) {}

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
    const key = await this.repo
      .createQueryBuilder('k')
      .innerJoin(
        'tenant_lookups',
        'l',
        `l.kind = 'tenant_key' AND l.value = k.key_hash AND l.tenant_id = k.tenant_id`,
      )
      .innerJoinAndSelect('k.tenant', 'tenant')
      .where('l.value = :keyHash AND k.key_hash = :keyHash AND k.revoked_at IS NULL', { keyHash })
      .getOne();
    return key?.tenant ? { key, tenant: key.tenant } : null;
  }
}
