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

  async findActiveByHash(
    tokenHash: string,
  ): Promise<{ token: StaffTokenEntity; tenant: TenantEntity } | null> {
    const token = await this.repo.findOne({
      where: { tokenHash, revokedAt: IsNull() },
      relations: { tenant: true },
    });
    return token?.tenant ? { token, tenant: token.tenant } : null;
  }
}
