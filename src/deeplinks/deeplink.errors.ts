import { ConflictError, UnprocessableError } from '../common/errors/domain-error';

export class TargetNotAllowedError extends UnprocessableError {
  constructor() {
    super(
      'target_not_allowed',
      "The target is not an https URL on one of the tenant's allowed hosts (or not a valid id).",
    );
  }
}

export class PromoCodeTakenError extends ConflictError {
  constructor(promoCode: string) {
    super(`The promo code "${promoCode}" is another link's in this tenant.`, 'promo_code_taken');
  }
}
