import { Body, Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import type { Actor } from '../common/access/actor';
import { ApiProblems } from '../common/errors/problem.response';
import { AdminPost } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ApplicationsService } from './applications.service';
import {
  ApproveApplicationDto,
  ListApplicationsQueryDto,
  RejectApplicationDto,
} from './dto/application-requests.dto';
import { ApplicationListResponse, ApplicationResponse } from './dto/application.response';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/applications')
export class ApplicationsAdminController {
  constructor(private readonly applications: ApplicationsService) {}

  /**
   * The tenant's partner applications, newest first: every status but `unconfirmed` unless
   * `status` asks for one.
   */
  @Get()
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: ListApplicationsQueryDto,
  ): Promise<ApplicationListResponse> {
    return this.applications.list(tenant.id, query);
  }

  /** One application with its answers. */
  @Get(':application_id')
  @Admin('viewer')
  @ApiProblems(401, 403, [404, 'application_not_found'])
  get(
    @CurrentTenant() tenant: TenantEntity,
    @Param('application_id') applicationId: string,
  ): Promise<ApplicationResponse> {
    return this.applications.get(tenant.id, applicationId);
  }

  /**
   * Approves a pending application, once however many clicks race: the applicant becomes a
   * member (`external_id` the application id) in `group_id` (default the group applied to), under
   * their recruiter while that one is an active member; `partner.approved`, audited. An email
   * that has become a partner's meanwhile: 409 `conflict` (reject the application instead).
   */
  @AdminPost(
    ':application_id/approve',
    'manager',
    [404, 'application_not_found'],
    [404, 'group_not_found'],
    [409, 'invalid_transition'],
    [409, 'conflict'],
  )
  approve(
    @CurrentTenant() tenant: TenantEntity,
    @Param('application_id') applicationId: string,
    @Body() dto: ApproveApplicationDto,
    @CurrentActor() actor: Actor,
  ): Promise<ApplicationResponse> {
    return this.applications.approve(tenant.id, applicationId, dto, actor);
  }

  /** Rejects a pending application with a reason (`partner.rejected`, audited), once. */
  @AdminPost(
    ':application_id/reject',
    'manager',
    [404, 'application_not_found'],
    [409, 'invalid_transition'],
  )
  reject(
    @CurrentTenant() tenant: TenantEntity,
    @Param('application_id') applicationId: string,
    @Body() dto: RejectApplicationDto,
    @CurrentActor() actor: Actor,
  ): Promise<ApplicationResponse> {
    return this.applications.reject(tenant.id, applicationId, dto.reason, actor);
  }
}
