export class ImportErrorResponse {
  /**
   * The file's line; in a CSV file the header is line 1. 0 for the import as a whole
   * (`import_interrupted`: its process stopped; `import_failed`: an unexpected error). @example 42
   */
  line: number;
  /** @example "referrer_not_found" */ code: string;
  /** @example "referrer_external_id u-77 is neither a row of the file nor a member of the tenant" */
  message: string;
}

export class ImportAcceptedResponse {
  /** @example "imp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ import_id: string;
  /** @example "running" */ status: string;
}

/** An import job (docs/import-export.md). */
export class ImportStatusResponse {
  /** @example "imp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ import_id: string;
  /** `queued`, `running`, `succeeded` or `failed`. @example "succeeded" */ status: string;
  /** What a running import is doing: `staging`, `checking`, `tree`, `writing`, `done`. @example "done" */
  phase: string;
  /** Data rows read from the file so far (all of them once staged). @example 1000 */
  rows_total: number;
  /** Rows applied: equal to rows_total once succeeded, 0 before (the apply is one transaction). @example 1000 */
  rows_done: number;
  /** @example 990 */ created: number;
  /** @example 4 */ updated: number;
  /** @example 6 */ unchanged: number;
  /** All errors found; `errors` holds the first 1000 by line. @example 0 */ error_count: number;
  errors: ImportErrorResponse[];
  /** @example "2026-11-25T18:00:00.000Z" */ created_at: string;
  /** @example "2026-11-25T18:00:09.000Z" */ finished_at: string | null;
}
