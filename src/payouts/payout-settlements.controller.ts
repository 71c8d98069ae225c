import { Body, Injectable, Param } from '@nestjs/common';
import type { Actor } from '../common/access/actor';
import { CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import type { WriteSurface } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MarkPayoutFailedDto, MarkPayoutPaidDto } from './dto/payout-requests.dto';
import { PayoutResponse } from './dto/payout.response';
import { PayoutsService } from './payouts.service';

/**
 * What the bank did with a payout, reported by the tenant's back end (PayoutsFederationController)
 * or by its staff (PayoutsAdminController), the same bodies on both surfaces (docs/payouts.md).
 * Both are recorded in the audit log: a payout is money leaving the program.
 */
export function PayoutSettlements(surface: WriteSurface) {
  // Named, not `@surface.post(…)`: the OpenAPI plugin documents a route only under a named
  // decorator (docs/architecture.md, "One write, two surfaces").
  const SurfacePost = surface.post;

  // Injectable for its constructor's types: the controller extending it declares none.
  @Injectable()
  class PayoutSettlementsController {
    constructor(protected readonly payouts: PayoutsService) {}

    /** pending → paid with the transfer's reference; its bonuses become paid. */
    @SurfacePost(
      ':payout_id/paid',
      'manager',
      [404, 'payout_not_found'],
      [409, 'invalid_transition'],
    )
    paid(
      @CurrentTenant() tenant: TenantEntity,
      @Param('payout_id') payoutId: string,
      @Body() dto: MarkPayoutPaidDto,
      @CurrentActor() actor: Actor,
    ): Promise<PayoutResponse> {
      return this.payouts.markPaid(tenant.id, payoutId, dto.reference, actor);
    }

    /**
     * pending → failed with a reason (also: the bank returned the payment before settling); its
     * items return to the partner's balance.
     */
    @SurfacePost(
      ':payout_id/failed',
      'manager',
      [404, 'payout_not_found'],
      [409, 'invalid_transition'],
    )
    failed(
      @CurrentTenant() tenant: TenantEntity,
      @Param('payout_id') payoutId: string,
      @Body() dto: MarkPayoutFailedDto,
      @CurrentActor() actor: Actor,
    ): Promise<PayoutResponse> {
      return this.payouts.release(tenant.id, payoutId, 'failed', dto.reason, actor);
    }
  }
  return PayoutSettlementsController;
}
