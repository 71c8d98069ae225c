import { ConflictError, NotFoundError, UnprocessableError } from '../common/errors/domain-error';

export class LeadNotFoundError extends NotFoundError {
  constructor(leadId: string) {
    super('lead_not_found', `No lead "${leadId}" in this tenant.`);
  }
}

export class LeadTransitionError extends ConflictError {
  constructor(leadId: string, from: string, to: string) {
    super(`Lead "${leadId}" is ${from} and cannot become ${to}.`, 'invalid_transition');
  }
}

export class SelfReferralError extends UnprocessableError {
  constructor() {
    super('self_referral', "The lead's contact email is the referrer's own email.");
  }
}
