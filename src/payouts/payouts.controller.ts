import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { TenantKey } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { FEDERATION } from '../common/http/write-routes';
import { PayoutSettlements } from './payout-settlements.controller';

/** The tenant's back end reports what its bank did with a payout (docs/payouts.md). */
@ApiTags('federation')
@Controller('federation/v1/payouts')
@TenantKey()
@RateLimit('federation')
@Idempotent()
export class PayoutsFederationController extends PayoutSettlements(FEDERATION) {}
