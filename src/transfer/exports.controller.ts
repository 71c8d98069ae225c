import { Controller, Get, StreamableFile } from '@nestjs/common';
import { ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Admin, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { EXPORTS, ExportsService, type ExportKind } from './exports.service';

/** The OpenAPI description of one export: a CSV file with its header. */
function ApiCsv(kind: ExportKind) {
  return ApiResponse({
    status: 200,
    description:
      `RFC 4180 CSV, UTF-8, CRLF, header row: ${EXPORTS[kind].columns.join(', ')}. ` +
      "A text cell a spreadsheet would evaluate (starting with = + - @, TAB or CR) has a leading '",
    content: {
      'text/csv': { schema: { type: 'string', example: EXPORTS[kind].columns.join(',') } },
    },
  });
}

/**
 * Streamed CSV exports of a tenant's data (docs/import-export.md). Owner or platform: the files
 * hold every member's email and every lead's contact.
 */
@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/exports')
export class ExportsController {
  constructor(private readonly exports: ExportsService) {}

  private file(tenant: TenantEntity, kind: ExportKind) {
    return this.exports.stream(tenant.id, kind).then(
      (stream) =>
        new StreamableFile(stream, {
          type: 'text/csv; charset=utf-8',
          disposition: `attachment; filename="${tenant.slug}-${kind}.csv"`,
        }),
    );
  }

  /** Members with their referrers; imports back as it is (the import columns come first). */
  @Get('members.csv')
  @Admin('owner')
  @ApiProduces('text/csv')
  @ApiCsv('members')
  @ApiProblems(401, 403, 404)
  members(@CurrentTenant() tenant: TenantEntity): Promise<StreamableFile> {
    return this.file(tenant, 'members');
  }

  /** Leads, oldest first. */
  @Get('leads.csv')
  @Admin('owner')
  @ApiProduces('text/csv')
  @ApiCsv('leads')
  @ApiProblems(401, 403, 404)
  leads(@CurrentTenant() tenant: TenantEntity): Promise<StreamableFile> {
    return this.file(tenant, 'leads');
  }

  /** Conversions, oldest first. */
  @Get('conversions.csv')
  @Admin('owner')
  @ApiProduces('text/csv')
  @ApiCsv('conversions')
  @ApiProblems(401, 403, 404)
  conversions(@CurrentTenant() tenant: TenantEntity): Promise<StreamableFile> {
    return this.file(tenant, 'conversions');
  }

  /** Bonuses in every status, oldest first. */
  @Get('bonuses.csv')
  @Admin('owner')
  @ApiProduces('text/csv')
  @ApiCsv('bonuses')
  @ApiProblems(401, 403, 404)
  bonuses(@CurrentTenant() tenant: TenantEntity): Promise<StreamableFile> {
    return this.file(tenant, 'bonuses');
  }

  /** Payouts in every status (docs/payouts.md), oldest first. */
  @Get('payouts.csv')
  @Admin('owner')
  @ApiProduces('text/csv')
  @ApiCsv('payouts')
  @ApiProblems(401, 403, 404)
  payouts(@CurrentTenant() tenant: TenantEntity): Promise<StreamableFile> {
    return this.file(tenant, 'payouts');
  }
}
