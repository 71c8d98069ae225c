import { Body, Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentTenant, TenantKey } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { FEDERATION, FederationPost } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { CreateLeadDto } from './dto/create-lead.dto';
import { LeadCreatedResponse } from './dto/lead.response';
import { LeadStatusWrites } from './lead-status-writes.controller';

@ApiTags('federation')
@Controller('federation/v1/leads')
@TenantKey()
@RateLimit('federation')
@Idempotent()
export class LeadsController extends LeadStatusWrites(FEDERATION) {
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
}
