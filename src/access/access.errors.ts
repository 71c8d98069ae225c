import { ForbiddenError, NotFoundError, UnauthorizedError } from '../common/errors/domain-error';
import type { StaffRole } from '../common/access/actor';

/** Refusals of AccessService that callers tell apart (the admin pages word them as pages). */

export class InvalidAdminTokenError extends UnauthorizedError {
  constructor() {
    super('invalid_admin_token', 'The bearer token is missing, unknown or revoked.');
  }
}

/** No admin pages session, or one that ended (expired, signed out, its staff token revoked). */
export class NoAdminSessionError extends UnauthorizedError {
  constructor() {
    super('invalid_session', 'Sign in to the admin pages first.');
  }
}

/** A form post of an organisation's page without its session's `_csrf` (or another's). */
export class StaleFormError extends ForbiddenError {
  constructor() {
    super('The form has expired; reload the page and try again.');
  }
}

/** A staff credential on another tenant's route: 403 whether that tenant exists or not. */
export class OtherTenantError extends ForbiddenError {
  constructor() {
    super('This token may not act on this tenant.');
  }
}

export class RoleTooLowError extends ForbiddenError {
  constructor(readonly required: StaffRole | 'platform') {
    super(`This action needs the ${required} role or higher.`);
  }
}

export class TenantNotFoundError extends NotFoundError {
  constructor(readonly slug: string) {
    super('tenant_not_found', `No tenant with slug "${slug}".`);
  }
}
