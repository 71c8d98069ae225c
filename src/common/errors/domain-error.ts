import { HttpStatus } from '@nestjs/common';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * A problem document lists at most this many errors; when there were more, its `error_count` says
 * how many (README.md, "Errors"), so that no file of bad lines makes an answer of its size.
 */
export const MAX_LISTED_ERRORS = 50;

/**
 * A refusal the contract names: a stable machine `code` (README.md, "Errors") and the status that
 * goes with it. Features subclass it in their `*.errors.ts`; the problem filter is the only place
 * that turns one into a response.
 */
export class DomainError extends Error {
  readonly errors?: FieldError[];
  /** How many errors there were, when `errors` lists only the first MAX_LISTED_ERRORS. */
  readonly errorCount?: number;

  /** `total`: how many errors were found, when `errors` holds only the first of them. */
  constructor(
    readonly status: HttpStatus,
    readonly code: string,
    readonly detail: string,
    errors?: FieldError[],
    readonly headers?: Record<string, string>,
    total = errors?.length ?? 0,
  ) {
    super(detail);
    this.name = new.target.name;
    this.errors = errors && errors.slice(0, MAX_LISTED_ERRORS);
    if (this.errors && total > this.errors.length) this.errorCount = total;
  }
}

export class ValidationFailedError extends DomainError {
  constructor(errors: FieldError[], detail = 'The request is not valid.', total = errors.length) {
    super(HttpStatus.BAD_REQUEST, 'validation_failed', detail, errors, undefined, total);
  }
}

export class NotFoundError extends DomainError {
  constructor(code: string, detail: string) {
    super(HttpStatus.NOT_FOUND, code, detail);
  }
}

export class ConflictError extends DomainError {
  constructor(detail: string, code = 'conflict') {
    super(HttpStatus.CONFLICT, code, detail);
  }
}

export class ForbiddenError extends DomainError {
  constructor(detail = 'This credential may not do that.', code = 'forbidden') {
    super(HttpStatus.FORBIDDEN, code, detail);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(code: string, detail: string) {
    super(HttpStatus.UNAUTHORIZED, code, detail);
  }
}

export class UnprocessableError extends DomainError {
  constructor(code: string, detail: string) {
    super(HttpStatus.UNPROCESSABLE_ENTITY, code, detail);
  }
}

/** How long a client should wait before retrying while the database is away (seconds). */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/** The database could not be reached or went away (`503 unavailable`, README.md "Errors"). */
export class DatabaseUnavailableError extends DomainError {
  constructor() {
    super(
      HttpStatus.SERVICE_UNAVAILABLE,
      'unavailable',
      'The database is not available right now; retry shortly.',
      undefined,
      { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) },
    );
  }
}
