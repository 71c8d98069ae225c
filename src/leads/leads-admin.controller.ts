import { Body, Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import type { Actor } from '../common/access/actor';
import { StaffWrite } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ChangeLeadStatusDto } from './dto/lead-status.dto';
import { LeadResponse } from './dto/lead.response';
import { CHANGE_LEAD_STATUS } from './lead-status-writes.openapi';
import { LeadsService } from './leads.service';

/** Staff move a lead's status as the federation does, in the audit log. */
@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/leads')
export class LeadsAdminController {
  constructor(private readonly leads: LeadsService) {}

  @StaffWrite(CHANGE_LEAD_STATUS)
  changeStatus(
    @CurrentTenant() tenant: TenantEntity,
    @Param('lead_id') leadId: string,
    @Body() dto: ChangeLeadStatusDto,
    @CurrentActor() actor: Actor,
  ): Promise<LeadResponse> {
    return this.leads.changeStatus(tenant.id, leadId, dto, actor);
  }
}
