import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentTenant, EmbedOrigin } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { ApiProblems } from '../common/errors/problem.response';
import { LeadCreatedResponse } from '../leads/dto/lead.response';
import { LeadsService } from '../leads/leads.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { DeeplinksService } from './deeplinks.service';
import { LeadFormDto } from './dto/lead-form.dto';

@ApiTags('embed')
@Controller('embed/v1/data/leads')
export class LeadFormController {
  constructor(
    private readonly links: DeeplinksService,
    private readonly leads: LeadsService,
  ) {}

  /** The lead-form widget: a lead for the partner named by `ref`. */
  @Post()
  @HttpCode(200)
  @EmbedOrigin({ allowOwnOrigin: true })
  @RateLimit('embed', 'lead_form')
  @ApiProblems(
    400,
    [403, 'origin_not_allowed'],
    [404, 'offer_not_found'],
    [422, 'invalid_ref'],
    [422, 'ref_expired'],
    [429, 'rate_limited'],
  )
  async create(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: LeadFormDto,
  ): Promise<LeadCreatedResponse> {
    const ref = this.links.verifyRef(dto.ref, tenant);
    return this.leads.create(
      tenant,
      {
        referrer_user_id: ref.r,
        contact: dto.contact,
        offer_id: dto.offer_id,
        metadata: dto.metadata,
      },
      'lead_form',
      ref.c ? new Date(ref.c) : null,
    );
  }
}
