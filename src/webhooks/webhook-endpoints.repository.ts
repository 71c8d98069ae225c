import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EntityRows } from '../database/entity-rows';
import { TransactionHost } from '../database/transaction-host';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

@Injectable()
export class WebhookEndpointsRepository {
  private readonly rows: EntityRows<WebhookEndpointEntity>;

  constructor(
    private readonly tx: TransactionHost,
    dataSource: DataSource,
  ) {
    this.rows = new EntityRows(dataSource, WebhookEndpointEntity);
  }

  private get repo() {
    return this.tx.manager.getRepository(WebhookEndpointEntity);
  }

  /** The tenant's endpoint; read by every transaction that emits events (constant SQL). */
  async find(tenantId: string): Promise<WebhookEndpointEntity | null> {
    const [row] = await this.tx.select(
      `SELECT ${this.rows.select('e')} FROM webhook_endpoints e WHERE e.tenant_id = $1`,
      [tenantId],
    );
    return row ? this.rows.from(row) : null;
  }

  findForUpdate(tenantId: string): Promise<WebhookEndpointEntity | null> {
    return this.repo.findOne({ where: { tenantId }, lock: { mode: 'pessimistic_write' } });
  }

  save(endpoint: WebhookEndpointEntity): Promise<WebhookEndpointEntity> {
    return this.repo.save(endpoint);
  }
}
