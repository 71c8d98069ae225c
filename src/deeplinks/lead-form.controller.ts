import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentTenant, EmbedOrigin } from '../access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import { RateLimiter } from '../common/http/rate-limiter';
import { LeadCreatedResponse } from '../leads/dto/lead.response';
import { LeadsService } from '../leads/leads.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { DeeplinksService } from './deeplinks.service';
import { LeadFormDto } from './dto/lead-form.dto';

/** SPEC 7: the lead form accepts 20 submissions a minute per IP. */
export const LEAD_FORM_LIMIT = { perMinute: 20 };

@ApiTags('embed')
@Controller('embed/v1/data/leads')
export class LeadFormController {
  constructor(
    private readonly links: DeeplinksService,
    private readonly leads: LeadsService,
    private readonly limiter: RateLimiter,
  ) {}

  /** The lead-form widget: a lead for the partner named by `ref` (extends the seed). */
  @Post()
  @HttpCode(200)
  @EmbedOrigin({ allowOwnOrigin: true })
  @ApiProblems(
    400,
    [403, 'origin_not_allowed'],
    [404, 'offer_not_found'],
    [422, 'invalid_ref'],
    [429, 'rate_limited'],
  )
  async create(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: LeadFormDto,
    @Ip() ip: string,
  ): Promise<LeadCreatedResponse> {
    await this.limiter.consume('lead_form', ip, LEAD_FORM_LIMIT.perMinute, 60);
    const ref = this.links.verifyRef(dto.ref, tenant.id);
    return this.leads.create(
      tenant,
      {
        referrer_user_id: ref.r,
        contact: dto.contact,
        offer_id: dto.offer_id,
        metadata: dto.metadata,
      },
      'lead_form',
    );
  }
}
