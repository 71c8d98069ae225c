import { Body, Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentTenant, TenantKey } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { FederationPost, FederationWrite } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { CreateLeadDto } from './dto/create-lead.dto';
import { ChangeLeadStatusDto } from './dto/lead-status.dto';
import { LeadCreatedResponse, LeadResponse } from './dto/lead.response';
import { CHANGE_LEAD_STATUS } from './lead-status-writes.openapi';
import { LeadsService } from './leads.service';

@ApiTags('federation')
@Controller('federation/v1/leads')
@TenantKey()
@RateLimit('federation')
@Idempotent()
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  /**
   * Registers a lead for a referrer; emits lead.created (and bonus.pending with a lead bonus). A
   * lead bonus that would take the tenant's money past the safe range: 422 `amount_out_of_range`.
   */
  @FederationPost(
    '',
    [404, 'referrer_not_found'],
    [404, 'offer_not_found'],
    [422, 'self_referral'],
    [422, 'amount_out_of_range'],
  )
  create(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: CreateLeadDto,
  ): Promise<LeadCreatedResponse> {
    return this.leads.create(tenant, dto, 'federation');
  }

  // The back end's moves are its normal traffic, announced by webhooks: no audit actor.
  @FederationWrite(CHANGE_LEAD_STATUS)
  changeStatus(
    @CurrentTenant() tenant: TenantEntity,
    @Param('lead_id') leadId: string,
    @Body() dto: ChangeLeadStatusDto,
  ): Promise<LeadResponse> {
    return this.leads.changeStatus(tenant.id, leadId, dto, undefined);
  }
}
