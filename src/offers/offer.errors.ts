import { NotFoundError } from '../common/errors/domain-error';

export class OfferNotFoundError extends NotFoundError {
  constructor(offerId: string) {
    super('offer_not_found', `No offer "${offerId}" in this tenant.`);
  }
}
