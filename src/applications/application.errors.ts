import { ConflictError, NotFoundError } from '../common/errors/domain-error';

export class ApplicationNotFoundError extends NotFoundError {
  constructor(applicationId: string) {
    super('application_not_found', `No application "${applicationId}" in this tenant.`);
  }
}

export class ApplicationTransitionError extends ConflictError {
  constructor(applicationId: string, from: string, to: string) {
    super(
      `Application "${applicationId}" is ${from}; only a pending application can become ${to}.`,
      'invalid_transition',
    );
  }
}
