import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { TenantKey } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { FEDERATION } from '../common/http/write-routes';
import { ConversionWrites } from './conversion-writes.controller';

/** The tenant's back end registers, previews and reverses conversions (docs/money.md). */
@ApiTags('federation')
@Controller('federation/v1/conversions')
@TenantKey()
@RateLimit('federation')
@Idempotent()
export class ConversionsController extends ConversionWrites(FEDERATION) {}
