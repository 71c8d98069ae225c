import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { TransactionHost } from '../database/transaction-host';
import { StaffTokenEntity } from './staff-token.entity';
import { TenantEntity } from './tenant.entity';

@Injectable()
export class StaffTokensRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(StaffTokenEntity);
  }

  async insert(token: StaffTokenEntity): Promise<void> {
    await this.repo.insert(token);
  }

  list(tenantId: string): Promise<StaffTokenEntity[]> {
    return this.repo.find({ where: { tenantId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  find(tenantId: string, tokenId: string): Promise<StaffTokenEntity | null> {
    return this.repo.findOneBy({ tenantId, id: tokenId });
  }

  async revoke(tenantId: string, tokenId: string): Promise<boolean> {
    const result = await this.repo.update(
      { tenantId, id: tokenId, revokedAt: IsNull() },
      { revokedAt: () => 'now()' },
    );
    return (result.affected ?? 0) > 0;
  }

  /** The token's tenant from `tenant_lookups` (tenant-lookups.ts), then the token itself. */
  async findActiveByHash(
    tokenHash: string,
  ): Promise<{ token: StaffTokenEntity; tenant: TenantEntity } | null> {
    const token = await this.repo
      .createQueryBuilder('s')
      .innerJoin(
        'tenant_lookups',
        'l',
        `l.kind = 'staff_token' AND l.value = s.token_hash AND l.tenant_id = s.tenant_id`,
      )
      .innerJoinAndSelect('s.tenant', 'tenant')
      .where('l.value = :tokenHash AND s.token_hash = :tokenHash AND s.revoked_at IS NULL', {
        tokenHash,
      })
      .getOne();
    return token?.tenant ? { token, tenant: token.tenant } : null;
  }
}
