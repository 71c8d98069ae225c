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

/** The applicant's email is a member of the tenant already (they joined some other way). */
export class AlreadyPartnerError extends ConflictError {
  constructor(applicationId: string, memberId: string) {
    super(
      `The email of application "${applicationId}" already belongs to partner "${memberId}" of this tenant; reject the application instead.`,
    );
  }
}
