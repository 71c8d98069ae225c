import { Body, Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentTenant, TenantKey } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { FederationPost } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ConversionsService } from './conversions.service';
import {
  PreviewConversionDto,
  RegisterConversionDto,
  ReverseConversionDto,
} from './dto/conversion-requests.dto';
import {
  ConversionPreviewResponse,
  ConversionResponse,
  ReversalResponse,
} from './dto/conversion.response';

@ApiTags('federation')
@Controller('federation/v1/conversions')
@TenantKey()
@RateLimit('federation')
@Idempotent()
export class ConversionsController {
  constructor(private readonly conversions: ConversionsService) {}

  /**
   * Registers an order and pays bonuses to the referrer and uplines (pending). The same
   * `external_order_id` again returns the first conversion; with other data, 409. Instead of
   * `lead_id`, `promo_code` or `signed_ref` plus `customer` name the partner: the lead is created
   * in the same transaction and the answer adds `lead_id` (docs/fraud.md).
   */
  @FederationPost(
    'register',
    [404, 'lead_not_found'],
    [404, 'promo_code_not_found'],
    [404, 'referrer_not_found'],
    [409, 'external_order_id_conflict'],
    [409, 'invalid_transition'],
    [422, 'invalid_ref'],
    [422, 'ref_expired'],
    [422, 'self_referral'],
  )
  register(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: RegisterConversionDto,
  ): Promise<ConversionResponse> {
    return this.conversions.register(tenant, dto);
  }

  /** The bonuses `register` would create; writes nothing. */
  @FederationPost('preview', [404, 'lead_not_found'], [409, 'invalid_transition'])
  preview(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: PreviewConversionDto,
  ): Promise<ConversionPreviewResponse> {
    return this.conversions.preview(tenant, dto);
  }

  /** Cancels a conversion (return or refund): its bonuses are written off. */
  @FederationPost(
    ':conversion_id/reverse',
    [404, 'conversion_not_found'],
    [409, 'already_reversed'],
  )
  reverse(
    @CurrentTenant() tenant: TenantEntity,
    @Param('conversion_id') conversionId: string,
    @Body() dto: ReverseConversionDto,
  ): Promise<ReversalResponse> {
    return this.conversions.reverse(tenant.id, conversionId, dto.reason);
  }
}
