import { ConflictError, NotFoundError, UnprocessableError } from '../common/errors/domain-error';

export class ReferrerNotFoundError extends NotFoundError {
  constructor(serviceUserId: string) {
    super(
      'referrer_not_found',
      `No member of this tenant has the service user id "${serviceUserId}".`,
    );
  }
}

export class ReferralCycleError extends UnprocessableError {
  constructor() {
    super('referral_cycle', 'The referrer is this user or someone in their downline.');
  }
}

export class MemberNotFoundError extends NotFoundError {
  constructor(userId: string) {
    super('user_not_found', `No user "${userId}" in this tenant.`);
  }
}

export class InvalidRefError extends UnprocessableError {
  constructor() {
    super('invalid_ref', 'The ref is not a valid signed reference of this tenant.');
  }
}

export class RefExpiredError extends UnprocessableError {
  constructor() {
    super('ref_expired', "The ref's click is older than the tenant's attribution window.");
  }
}

/** docs/fraud.md, "Bans": a banned member is activated only by lifting the ban. */
export class MemberBannedError extends ConflictError {
  constructor(userId: string) {
    super(
      `The user "${userId}" is banned: lift the ban first (unban), which also activates them.`,
      'user_banned',
    );
  }
}

/** docs/privacy.md: an erased member stays a deactivated tombstone for good. */
export class MemberErasedError extends ConflictError {
  constructor(userId: string) {
    super(`The user "${userId}" was erased: an erased member cannot be activated.`, 'user_erased');
  }
}
