import { ConflictError, NotFoundError } from '../common/errors/domain-error';

export class TenantNotFoundError extends NotFoundError {
  constructor(slug: string) {
    super('tenant_not_found', `No tenant with slug "${slug}".`);
  }
}

export class SlugTakenError extends ConflictError {
  constructor(slug: string) {
    super(`A tenant with slug "${slug}" already exists.`);
  }
}

export class TooManyKeysError extends ConflictError {
  constructor(max: number) {
    super(`A tenant has at most ${max} active keys; revoke one before creating another.`);
  }
}

export class CredentialNotFoundError extends NotFoundError {
  constructor(kind: 'key' | 'staff token', id: string) {
    super('not_found', `No ${kind} "${id}" in this tenant.`);
  }
}
