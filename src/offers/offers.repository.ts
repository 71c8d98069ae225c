import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import type { Program } from '../tenants/program';
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

  /** The offer's own program (null: the tenant's default applies); false when there is no offer. */
  async setProgram(
    tenantId: string,
    offerId: string,
    program: Program | null,
    programVersionId: string,
  ): Promise<boolean> {
    const result = await this.repo.update({ tenantId, id: offerId }, { program, programVersionId });
    return (result.affected ?? 0) > 0;
  }

  async insert(offer: OfferEntity): Promise<void> {
    await this.repo.insert(offer);
  }
}
