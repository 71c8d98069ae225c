import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { type ExportFilter, type ExportKind, ExportsRepository } from './exports.repository';

export { EXPORTS, type ExportFilter, type ExportKind } from './exports.repository';

/**
 * CSV exports (docs/import-export.md): the tenant's members, leads, conversions, bonuses and
 * payouts as CSV, streamed (exports.repository.ts holds each export's columns and statement).
 * The console's CSV downloads are the same exports with its list's filters.
 */
@Injectable()
export class ExportsService {
  constructor(private readonly exports: ExportsRepository) {}

  stream(tenantId: string, kind: ExportKind, filter?: ExportFilter): Promise<Readable> {
    return this.exports.stream(tenantId, kind, filter);
  }
}
