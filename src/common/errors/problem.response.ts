import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';

export class FieldErrorResponse {
  /** @example "contact.email" */ field: string;
  /** @example "must be an email" */ message: string;
}

/** RFC 9457 problem document (README.md, "Errors"). */
export class ProblemResponse {
  /** @example "about:blank" */ type: string;
  /** @example "Bad Request" */ title: string;
  /** @example 400 */ status: number;
  /** Stable machine code. @example "validation_failed" */ code: string;
  /** @example "The request is not valid." */ detail: string;
  /** @example "01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ request_id: string;
  /** At most 50; `error_count` then says how many there were. */
  errors?: FieldErrorResponse[];
  /** Present when `errors` lists only the first 50: how many errors there were. @example 1200 */
  error_count?: number;
}

const DEFAULT_CODES: Record<number, string> = {
  400: 'validation_failed',
  401: 'invalid_admin_token',
  403: 'forbidden',
  404: 'tenant_not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'referral_cycle',
};

/** Documents the problem documents a route can answer, `status` or `[status, code]` each. */
export function ApiProblems(...entries: (number | [number, string])[]) {
  return applyDecorators(
    ApiExtraModels(ProblemResponse),
    ...entries.map((entry) => {
      const [status, code] = Array.isArray(entry)
        ? entry
        : [entry, DEFAULT_CODES[entry] ?? 'error'];
      return ApiResponse({
        status,
        description: `Problem document, e.g. code \`${code}\``,
        content: {
          'application/problem+json': {
            schema: { $ref: getSchemaPath(ProblemResponse) },
            example: {
              type: 'about:blank',
              title: STATUS_CODES[status],
              status,
              code,
              detail: 'A sentence for humans.',
              request_id: '01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
            },
          },
        },
      });
    }),
  );
}
