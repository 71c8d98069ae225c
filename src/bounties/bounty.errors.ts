import { NotFoundError } from '../common/errors/domain-error';

export class BountyNotFoundError extends NotFoundError {
  constructor(bounty: string) {
    super('bounty_not_found', `No bounty "${bounty}" in this tenant.`);
  }
}
