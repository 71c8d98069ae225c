import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentMemberId, CurrentTenant, EmbedBearer } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { DeeplinksService } from './deeplinks.service';
import {
  CreateReferralLinkDto,
  ReferralLinkListResponse,
  ReferralLinkResponse,
} from './dto/referral-link.dto';

const BEARER_PROBLEMS = [
  [401, 'invalid_token'],
  [401, 'token_expired'],
  [403, 'tenant_mismatch'],
  [403, 'origin_not_allowed'],
] as [number, string][];

/** The Embed Action API of links: the signed-in partner's own (docs/embedding.md §4). */
@ApiTags('embed')
@Controller('embed/v1/data')
@EmbedBearer()
@RateLimit('embed')
export class ReferralLinkController {
  constructor(private readonly links: DeeplinksService) {}

  /** The signed-in partner's short link for a target; the same parameters return the same link. */
  @Post('referral-link')
  @HttpCode(200)
  @ApiProblems(400, ...BEARER_PROBLEMS, [422, 'target_not_allowed'])
  create(
    @CurrentTenant() tenant: TenantEntity,
    @CurrentMemberId() memberId: string,
    @Body() dto: CreateReferralLinkDto,
  ): Promise<ReferralLinkResponse> {
    return this.links.createOrReuse(tenant, memberId, dto);
  }

  /**
   * The signed-in partner's links, newest first (at most 50), with their clicks and promo codes:
   * the link widget shows them before offering a new one.
   */
  @Get('referral-links')
  @ApiProblems(...BEARER_PROBLEMS)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @CurrentMemberId() memberId: string,
  ): Promise<ReferralLinkListResponse> {
    return this.links.linksOf(tenant, memberId);
  }
}
