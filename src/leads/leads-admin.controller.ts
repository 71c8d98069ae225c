import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ChangeLeadStatusDto } from './dto/lead-status.dto';
import { LeadResponse } from './dto/lead.response';
import { LeadsService } from './leads.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/leads')
export class LeadsAdminController {
  constructor(private readonly leads: LeadsService) {}

  /** The staff equivalent of the federation lead-status call; recorded in the audit log. */
  @Post(':lead_id/status')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'lead_not_found'], [409, 'invalid_transition'])
  changeStatus(
    @CurrentTenant() tenant: TenantEntity,
    @Param('lead_id') leadId: string,
    @Body() dto: ChangeLeadStatusDto,
    @CurrentActor() actor: Actor,
  ): Promise<LeadResponse> {
    return this.leads.changeStatus(tenant.id, leadId, dto, actor);
  }
}
