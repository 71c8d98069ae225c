import { ConflictError, NotFoundError } from '../common/errors/domain-error';

export class PayoutNotFoundError extends NotFoundError {
  constructor(payoutId: string) {
    super('payout_not_found', `No payout "${payoutId}" in this tenant.`);
  }
}

export class PayoutRunNotFoundError extends NotFoundError {
  constructor(runId: string) {
    super('payout_run_not_found', `No payout run "${runId}" in this tenant.`);
  }
}

export class PayoutTransitionError extends ConflictError {
  constructor(payoutId: string, from: string, to: string) {
    super(
      `Payout "${payoutId}" is ${from}; only a pending payout can become ${to}.`,
      'invalid_transition',
    );
  }
}
