import { Body, Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentActor, CurrentTenant, TenantKey } from '../common/access/access.decorators';
import type { Actor } from '../common/access/actor';
import { RateLimit } from '../access/rate-limits';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { FederationWrite } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MarkPayoutFailedDto, MarkPayoutPaidDto } from './dto/payout-requests.dto';
import { PayoutResponse } from './dto/payout.response';
import { PAYOUT_SETTLEMENTS } from './payout-settlements.openapi';
import { PayoutsService } from './payouts.service';

/** The tenant's back end reports what its bank did with a payout (docs/payouts.md). */
@ApiTags('federation')
@Controller('federation/v1/payouts')
@TenantKey()
@RateLimit('federation')
@Idempotent()
export class PayoutsFederationController {
  constructor(private readonly payouts: PayoutsService) {}

  @FederationWrite(PAYOUT_SETTLEMENTS.paid)
  paid(
    @CurrentTenant() tenant: TenantEntity,
    @Param('payout_id') payoutId: string,
    @Body() dto: MarkPayoutPaidDto,
    @CurrentActor() actor: Actor,
  ): Promise<PayoutResponse> {
    return this.payouts.markPaid(tenant.id, payoutId, dto.reference, actor);
  }

  @FederationWrite(PAYOUT_SETTLEMENTS.failed)
  failed(
    @CurrentTenant() tenant: TenantEntity,
    @Param('payout_id') payoutId: string,
    @Body() dto: MarkPayoutFailedDto,
    @CurrentActor() actor: Actor,
  ): Promise<PayoutResponse> {
    return this.payouts.release(tenant.id, payoutId, 'failed', dto.reason, actor);
  }
}
