import { ConflictError, NotFoundError } from '../common/errors/domain-error';

export class BonusNotFoundError extends NotFoundError {
  constructor(bonusId: string) {
    super('bonus_not_found', `No bonus "${bonusId}" in this tenant.`);
  }
}

export class BonusTransitionError extends ConflictError {
  constructor(bonusId: string, from: string, to: string) {
    super(
      `Bonus "${bonusId}" is ${from}; only a pending bonus can become ${to}.`,
      'invalid_transition',
    );
  }
}
