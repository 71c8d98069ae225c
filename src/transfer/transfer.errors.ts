import { HttpStatus } from '@nestjs/common';
import { DomainError, NotFoundError, ValidationFailedError } from '../common/errors/domain-error';

export class ImportNotFoundError extends NotFoundError {
  constructor(importId: string) {
    super('not_found', `No import ${importId} in this tenant.`);
  }
}

/** docs/import-export.md: a line of an import file (an NDJSON line, a CSV record) is at most 1 MiB… */
export const MAX_IMPORT_LINE_BYTES = 1024 * 1024;
/** …and a CSV record has at most 100 fields (an import reads 10 columns). */
export const MAX_IMPORT_FIELDS = 100;

/**
 * A column (CSV) or key (NDJSON) the import does not know: refused before anything is applied.
 * `columns` may be the first few of `total` (the problem document lists at most 50).
 */
export class UnknownImportColumnsError extends ValidationFailedError {
  constructor(columns: string[], total = columns.length) {
    super(
      columns.map((column) => ({ field: column, message: 'is not an import column' })),
      'The file has columns the import does not know (docs/import-export.md).',
      total,
    );
  }
}

/** A line over MAX_IMPORT_LINE_BYTES or a record over MAX_IMPORT_FIELDS: the file is refused. */
export class ImportLineRefusedError extends ValidationFailedError {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(
      [{ field: `line ${line}`, message }],
      `Line ${line} of the file is refused, and with it the file: nothing was imported ` +
        '(docs/import-export.md, "Limits").',
    );
  }
}

export class ImportPayloadTooLargeError extends DomainError {
  constructor() {
    super(HttpStatus.PAYLOAD_TOO_LARGE, 'payload_too_large', 'An import file is at most 1 GiB.');
  }
}

export class ImportMediaTypeError extends DomainError {
  constructor() {
    super(
      HttpStatus.UNSUPPORTED_MEDIA_TYPE,
      'unsupported_media_type',
      'Send the file as text/csv (with a header row) or application/x-ndjson.',
    );
  }
}

/** How long a client refused for too many imports at once should wait (seconds). */
export const TOO_MANY_IMPORTS_RETRY_AFTER_S = 10;

/**
 * `429 too_many_imports`: this process runs as many imports as it may (IMPORT_CONCURRENCY), or as
 * many of this tenant's (IMPORT_TENANT_CONCURRENCY). Nothing was read or started.
 */
export class TooManyImportsError extends DomainError {
  constructor(scope: 'tenant' | 'process', limit: number) {
    super(
      HttpStatus.TOO_MANY_REQUESTS,
      'too_many_imports',
      scope === 'tenant'
        ? `This tenant already has ${limit} import(s) running here; retry once one has finished.`
        : `The service is running ${limit} import(s) at once; retry shortly.`,
      undefined,
      { 'Retry-After': String(TOO_MANY_IMPORTS_RETRY_AFTER_S), Connection: 'close' },
    );
  }
}

/** The service is stopping: no new import starts (503, retried against another process). */
export class ImportsStoppingError extends DomainError {
  constructor() {
    super(
      HttpStatus.SERVICE_UNAVAILABLE,
      'unavailable',
      'The service is shutting down; retry the import shortly.',
      undefined,
      { 'Retry-After': '5', Connection: 'close' },
    );
  }
}
