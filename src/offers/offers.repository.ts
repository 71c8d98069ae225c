import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import { OfferEntity } from './offer.entity';

@Injectable()
export class OffersRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(OfferEntity);
  }

  find(tenantId: string, offerId: string): Promise<OfferEntity | null> {
    return this.repo.findOneBy({ tenantId, id: offerId });
  }

  list(tenantId: string): Promise<OfferEntity[]> {
    return this.repo.find({ where: { tenantId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  async insert(offer: OfferEntity): Promise<void> {
    await this.repo.insert(offer);
  }
}
