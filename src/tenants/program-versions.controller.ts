import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import { PageQueryDto } from '../common/http/pagination.dto';
import { ProgramVersionListResponse } from './dto/program-version.response';
import { ProgramVersionsService } from './program-versions.service';
import type { TenantEntity } from './tenant.entity';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/program')
export class ProgramVersionsController {
  constructor(private readonly versions: ProgramVersionsService) {}

  /**
   * Every version of the tenant's programs (the default, each group's, each offer's), newest first
   * (docs/money.md §2, "Versions"). Each bonus of a conversion names the version that paid it.
   */
  @Get('versions')
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: PageQueryDto,
  ): Promise<ProgramVersionListResponse> {
    return this.versions.list(tenant.id, query);
  }
}
