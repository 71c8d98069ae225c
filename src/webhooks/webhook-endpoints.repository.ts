import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(WebhookEndpointEntity);
  }

  find(tenantId: string): Promise<WebhookEndpointEntity | null> {
    return this.repo.findOneBy({ tenantId });
  }

  findForUpdate(tenantId: string): Promise<WebhookEndpointEntity | null> {
    return this.repo.findOne({ where: { tenantId }, lock: { mode: 'pessimistic_write' } });
  }

  save(endpoint: WebhookEndpointEntity): Promise<WebhookEndpointEntity> {
    return this.repo.save(endpoint);
  }
}
