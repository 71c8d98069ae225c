import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import { TenantEntity } from './tenant.entity';

@Injectable()
export class TenantsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(TenantEntity);
  }

  findBySlug(slug: string): Promise<TenantEntity | null> {
    return this.repo.findOneBy({ slug });
  }

  findById(tenantId: string): Promise<TenantEntity | null> {
    return this.repo.findOneBy({ id: tenantId });
  }

  /** Locks the tenant row for the rest of the transaction: serialises per-tenant limits. */
  lock(tenantId: string): Promise<TenantEntity | null> {
    return this.repo.findOne({ where: { id: tenantId }, lock: { mode: 'pessimistic_write' } });
  }

  async insert(tenant: TenantEntity): Promise<void> {
    await this.repo.insert(tenant);
  }

  save(tenant: TenantEntity): Promise<TenantEntity> {
    return this.repo.save(tenant);
  }
}
