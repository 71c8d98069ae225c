import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentMemberId, CurrentTenant, EmbedBearer } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { DeeplinksService } from './deeplinks.service';
import { CreateReferralLinkDto, ReferralLinkResponse } from './dto/referral-link.dto';

@ApiTags('embed')
@Controller('embed/v1/data/referral-link')
export class ReferralLinkController {
  constructor(private readonly links: DeeplinksService) {}

  /** The signed-in partner's short link for a target; the same parameters return the same link. */
  @Post()
  @HttpCode(200)
  @EmbedBearer()
  @RateLimit('embed')
  @ApiProblems(
    400,
    [401, 'invalid_token'],
    [401, 'token_expired'],
    [403, 'tenant_mismatch'],
    [403, 'origin_not_allowed'],
    [422, 'target_not_allowed'],
  )
  create(
    @CurrentTenant() tenant: TenantEntity,
    @CurrentMemberId() memberId: string,
    @Body() dto: CreateReferralLinkDto,
  ): Promise<ReferralLinkResponse> {
    return this.links.createOrReuse(tenant, memberId, dto);
  }
}
