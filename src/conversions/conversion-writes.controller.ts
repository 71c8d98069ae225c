import { Body, Injectable, Param } from '@nestjs/common';
import type { Actor } from '../common/access/actor';
import { CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import type { WriteSurface } from '../common/http/write-routes';
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

/**
 * The conversion writes of the tenant's back end and of its staff, the same bodies on both
 * surfaces: ConversionsController (Federation API) and ConversionsAdminController (Admin API)
 * extend the class made for theirs. Staff writes are recorded in the audit log.
 */
export function ConversionWrites(surface: WriteSurface) {
  // Named, not `@surface.post(…)`: the OpenAPI plugin documents a route only under a named
  // decorator (docs/architecture.md, "One write, two surfaces").
  const SurfacePost = surface.post;

  // Injectable for its constructor's types: the controller extending it declares none.
  @Injectable()
  class ConversionWritesController {
    constructor(private readonly conversions: ConversionsService) {}

    /**
     * Registers an order and pays bonuses to the referrer and uplines (pending). The same
     * `external_order_id` again returns the first conversion; with other data, 409. Instead of
     * `lead_id`, `promo_code` or `signed_ref` plus `customer` name the partner: the lead is
     * created in the same transaction and the answer adds `lead_id` (docs/fraud.md). An amount,
     * or bonuses, that would take the tenant's money past the safe range: 422
     * `amount_out_of_range` (docs/money.md).
     */
    @SurfacePost(
      'register',
      'manager',
      [404, 'lead_not_found'],
      [404, 'promo_code_not_found'],
      [404, 'referrer_not_found'],
      [409, 'external_order_id_conflict'],
      [409, 'invalid_transition'],
      [422, 'invalid_ref'],
      [422, 'ref_expired'],
      [422, 'self_referral'],
      [422, 'amount_out_of_range'],
    )
    register(
      @CurrentTenant() tenant: TenantEntity,
      @Body() dto: RegisterConversionDto,
      @CurrentActor() actor: Actor,
    ): Promise<ConversionResponse> {
      return this.conversions.register(tenant, dto, surface.auditActor(actor));
    }

    /** The bonuses `register` would create; writes nothing. */
    @SurfacePost('preview', 'viewer', [404, 'lead_not_found'], [409, 'invalid_transition'])
    preview(
      @CurrentTenant() tenant: TenantEntity,
      @Body() dto: PreviewConversionDto,
    ): Promise<ConversionPreviewResponse> {
      return this.conversions.preview(tenant, dto);
    }

    /** Cancels a conversion (return or refund): its bonuses are written off. */
    @SurfacePost(
      ':conversion_id/reverse',
      'manager',
      [404, 'conversion_not_found'],
      [409, 'already_reversed'],
    )
    reverse(
      @CurrentTenant() tenant: TenantEntity,
      @Param('conversion_id') conversionId: string,
      @Body() dto: ReverseConversionDto,
      @CurrentActor() actor: Actor,
    ): Promise<ReversalResponse> {
      return this.conversions.reverse(
        tenant.id,
        conversionId,
        dto.reason,
        surface.auditActor(actor),
      );
    }
  }
  return ConversionWritesController;
}
