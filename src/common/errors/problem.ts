import { STATUS_CODES } from 'node:http';
import { FieldError } from './domain-error';

/** An RFC 9457 problem document, shaped as README.md "Errors" shows. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  request_id?: string;
  errors?: FieldError[];
  /** How many errors there were, when `errors` lists only the first 50 (MAX_LISTED_ERRORS). */
  error_count?: number;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problem(
  status: number,
  code: string,
  detail: string,
  requestId?: string,
  errors?: FieldError[],
  errorCount?: number,
): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    code,
    detail,
    ...(requestId ? { request_id: requestId } : {}),
    ...(errors?.length ? { errors } : {}),
    ...(errors?.length && errorCount !== undefined ? { error_count: errorCount } : {}),
  };
}
