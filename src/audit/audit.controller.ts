import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import { AuditService } from './audit.service';
import { AuditLogResponse } from './dto/audit-entry.response';
import { ListAuditLogQueryDto } from './dto/list-audit-log.dto';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/audit-log')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  /** The tenant's audit log, newest first (the tenant typed by what it reads: audit imports no tenants/). */
  @Get()
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: { id: string },
    @Query() query: ListAuditLogQueryDto,
  ): Promise<AuditLogResponse> {
    return this.audit.list(tenant.id, query);
  }
}
