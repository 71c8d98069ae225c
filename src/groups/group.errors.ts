import { ConflictError, NotFoundError } from '../common/errors/domain-error';

export class GroupNotFoundError extends NotFoundError {
  constructor(group: string) {
    super('group_not_found', `No group "${group}" in this tenant.`);
  }
}

export class GroupSlugTakenError extends ConflictError {
  constructor(slug: string) {
    super(`A group with slug "${slug}" already exists in this tenant.`);
  }
}
