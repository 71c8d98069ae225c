import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import typeis from 'type-is';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import type { Actor } from '../common/access/actor';
import { ApiProblems } from '../common/errors/problem.response';
import { detachableBody } from '../common/http/request-body';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ImportAcceptedResponse, ImportStatusResponse } from './dto/import.response';
import { ImportsService, MAX_IMPORT_BYTES } from './imports.service';
import { ImportMediaTypeError } from './transfer.errors';

/** The media types an import body may have; the route is exempt from the JSON body parser. */
export const IMPORT_MEDIA_TYPES = ['text/csv', 'application/x-ndjson'];
/** The import route's path, whose body is streamed rather than parsed (common/http/json-body.ts). */
export const IMPORT_PATH = /^\/admin\/v1\/tenants\/[^/]+\/imports\/?$/;

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/imports')
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  /**
   * Imports members with their referrers (docs/import-export.md): a CSV file with a header row,
   * or NDJSON, up to 1 GiB, streamed. Rows in any order; idempotent by `external_id`;
   * all-or-nothing. Answers 202 once the body is read; the import goes on as a job: poll
   * `GET …/imports/{import_id}`. An unknown column, a line over 1 MiB or a CSV record of more
   * than 100 fields is 400 and starts nothing. Beyond IMPORT_CONCURRENCY imports at once in the
   * process, or IMPORT_TENANT_CONCURRENCY of the tenant: 429 `too_many_imports` with Retry-After,
   * before the body is read.
   */
  @Post()
  @HttpCode(202)
  @Admin('owner')
  @ApiConsumes(...IMPORT_MEDIA_TYPES)
  @ApiBody({
    schema: {
      type: 'string',
      example:
        'external_id,full_name,email,role,referrer_external_id,joined_at\n' +
        'u-1,Maria Ivanova,maria@example.com,leader,,2024-03-01T10:00:00Z\n' +
        'u-2,Ivan Petrov,ivan@example.com,partner,u-1,2024-03-02T11:30:00Z\n',
    },
  })
  @ApiProblems(
    [400, 'validation_failed'],
    401,
    403,
    404,
    [413, 'payload_too_large'],
    [415, 'unsupported_media_type'],
    [429, 'too_many_imports'],
    [503, 'unavailable'],
  )
  async create(
    @CurrentTenant() tenant: TenantEntity,
    @CurrentActor() actor: Actor,
    @Req() req: Request,
  ): Promise<ImportAcceptedResponse> {
    const type = typeis(req, IMPORT_MEDIA_TYPES);
    if (!type) throw new ImportMediaTypeError();
    const format = type === 'text/csv' ? 'csv' : 'ndjson';
    // A refused file (an unknown column, a line over 1 MiB) is answered once its body is read.
    const body = detachableBody(req, MAX_IMPORT_BYTES);
    const { importId, checker } = await this.imports
      .stage(tenant.id, format, body.stream, actor)
      .catch(async (error: unknown) => {
        await body.drain();
        throw error;
      });
    this.imports.applyInBackground(tenant.id, importId, checker, actor);
    return { import_id: importId, status: 'running' };
  }

  /** An import's status, progress, counts and first 1000 errors (by line). */
  @Get(':import_id')
  @Admin('owner')
  @ApiProblems(401, 403, [404, 'not_found'])
  get(
    @CurrentTenant() tenant: TenantEntity,
    @Param('import_id') importId: string,
  ): Promise<ImportStatusResponse> {
    return this.imports.get(tenant.id, importId);
  }
}
