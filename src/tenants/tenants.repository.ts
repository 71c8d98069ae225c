import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EntityRows } from '../database/entity-rows';
import { TransactionHost } from '../database/transaction-host';
import { TenantEntity } from './tenant.entity';

@Injectable()
export class TenantsRepository {
  private readonly rows: EntityRows<TenantEntity>;

  constructor(
    private readonly tx: TransactionHost,
    dataSource: DataSource,
  ) {
    this.rows = new EntityRows(dataSource, TenantEntity);
  }

  private get repo() {
    return this.tx.manager.getRepository(TenantEntity);
  }

  /** Every Embed API request starts here (EmbedOriginPolicy): constant SQL, no query builder. */
  async findBySlug(slug: string): Promise<TenantEntity | null> {
    const [row]: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.rows.select('t')} FROM tenants t WHERE t.slug = $1`,
      [slug],
    );
    return row ? this.rows.from(row) : null;
  }

  async any(): Promise<boolean> {
    const [row] = await this.tx.manager.query<{ any: boolean }[]>(
      'SELECT EXISTS (SELECT 1 FROM tenants) AS any',
    );
    return row.any;
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
