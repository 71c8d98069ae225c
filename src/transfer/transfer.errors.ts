import { HttpStatus } from '@nestjs/common';
import { DomainError, NotFoundError, ValidationFailedError } from '../common/errors/domain-error';

export class ImportNotFoundError extends NotFoundError {
  constructor(importId: string) {
    super('not_found', `No import ${importId} in this tenant.`);
  }
}

/** A column (CSV) or key (NDJSON) the import does not know: refused before anything is applied. */
export class UnknownImportColumnsError extends ValidationFailedError {
  constructor(columns: string[]) {
    super(
      columns.map((column) => ({ field: column, message: 'is not an import column' })),
      'The file has columns the import does not know (docs/import-export.md).',
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
