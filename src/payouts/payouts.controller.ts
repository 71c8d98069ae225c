import { Body, Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentActor, CurrentTenant, TenantKey } from '../common/access/access.decorators';
import type { Actor } from '../common/access/actor';
import { RateLimit } from '../access/rate-limits';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { FederationPost } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MarkPayoutFailedDto, MarkPayoutPaidDto } from './dto/payout-requests.dto';
import { PayoutResponse } from './dto/payout.response';
import { PayoutsService } from './payouts.service';

/** The tenant's back end reports what its bank did with a payout (docs/payouts.md). */
@ApiTags('federation')
@Controller('federation/v1/payouts')
@TenantKey()
@RateLimit('federation')
@Idempotent()
export class PayoutsFederationController {
  constructor(private readonly payouts: PayoutsService) {}

  /** pending → paid with the transfer's reference. */
  @FederationPost(':payout_id/paid', [404, 'payout_not_found'], [409, 'invalid_transition'])
  paid(
    @CurrentTenant() tenant: TenantEntity,
    @Param('payout_id') payoutId: string,
    @Body() dto: MarkPayoutPaidDto,
    @CurrentActor() actor: Actor,
  ): Promise<PayoutResponse> {
    return this.payouts.markPaid(tenant.id, payoutId, dto.reference, actor);
  }

  /** pending → failed with a reason (also: the bank returned the payment before settling). */
  @FederationPost(':payout_id/failed', [404, 'payout_not_found'], [409, 'invalid_transition'])
  failed(
    @CurrentTenant() tenant: TenantEntity,
    @Param('payout_id') payoutId: string,
    @Body() dto: MarkPayoutFailedDto,
    @CurrentActor() actor: Actor,
  ): Promise<PayoutResponse> {
    return this.payouts.release(tenant.id, payoutId, 'failed', dto.reason, actor);
  }
}
