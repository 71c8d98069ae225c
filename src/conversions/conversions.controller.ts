import { Body, Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentTenant, TenantKey } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { FederationWrite } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { CONVERSION_WRITES } from './conversion-writes.openapi';
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
 * The tenant's back end registers, previews and reverses conversions (docs/money.md). Its writes
 * are its normal traffic, announced by webhooks, not the audit log's.
 */
@ApiTags('federation')
@Controller('federation/v1/conversions')
@TenantKey()
@RateLimit('federation')
@Idempotent()
export class ConversionsController {
  constructor(private readonly conversions: ConversionsService) {}

  @FederationWrite(CONVERSION_WRITES.register)
  register(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: RegisterConversionDto,
  ): Promise<ConversionResponse> {
    return this.conversions.register(tenant, dto, undefined);
  }

  @FederationWrite(CONVERSION_WRITES.preview)
  preview(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: PreviewConversionDto,
  ): Promise<ConversionPreviewResponse> {
    return this.conversions.preview(tenant, dto);
  }

  @FederationWrite(CONVERSION_WRITES.reverse)
  reverse(
    @CurrentTenant() tenant: TenantEntity,
    @Param('conversion_id') conversionId: string,
    @Body() dto: ReverseConversionDto,
  ): Promise<ReversalResponse> {
    return this.conversions.reverse(tenant.id, conversionId, dto.reason, undefined);
  }
}
