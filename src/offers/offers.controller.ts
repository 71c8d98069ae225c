import { Body, Controller, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { CreateOfferDto } from './dto/create-offer.dto';
import { OfferListResponse, OfferResponse } from './dto/offer.response';
import { UpdateOfferDto } from './dto/update-offer.dto';
import { OffersService } from './offers.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/offers')
export class OffersController {
  constructor(private readonly offers: OffersService) {}

  /** Creates an offer, optionally with its own program. */
  @Post()
  @Admin('manager')
  @ApiProblems(400, 401, 403, 404)
  create(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: CreateOfferDto,
    @CurrentActor() actor: Actor,
  ): Promise<OfferResponse> {
    return this.offers.create(tenant.id, dto, actor);
  }

  /** The tenant's offers, newest first (extends README.md, "API overview"). */
  @Get()
  @Admin('viewer')
  @ApiProblems(401, 403, 404)
  list(@CurrentTenant() tenant: TenantEntity): Promise<OfferListResponse> {
    return this.offers.list(tenant.id);
  }

  /** Replaces the offer's own program, or (`null`) lets the tenant's default pay its leads. */
  @Patch(':offer_id')
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'offer_not_found'])
  update(
    @CurrentTenant() tenant: TenantEntity,
    @Param('offer_id') offerId: string,
    @Body() dto: UpdateOfferDto,
    @CurrentActor() actor: Actor,
  ): Promise<OfferResponse> {
    return this.offers.setProgram(tenant.id, offerId, dto.program, actor);
  }
}
