import { ConflictError, NotFoundError } from '../common/errors/domain-error';

export class ConversionNotFoundError extends NotFoundError {
  constructor(conversionId: string) {
    super('conversion_not_found', `No conversion "${conversionId}" in this tenant.`);
  }
}

export class AlreadyReversedError extends ConflictError {
  constructor(conversionId: string) {
    super(`Conversion "${conversionId}" was already reversed.`, 'already_reversed');
  }
}

export class ExternalOrderIdConflictError extends ConflictError {
  constructor(externalOrderId: string) {
    super(
      `Order "${externalOrderId}" was registered with another lead, amount or currency.`,
      'external_order_id_conflict',
    );
  }
}
