import { Body, Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import type { Actor } from '../common/access/actor';
import { StaffWrite } from '../common/http/write-routes';
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

/** Staff make the federation's conversion writes (docs/money.md §4), in the audit log. */
@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/conversions')
export class ConversionsAdminController {
  constructor(private readonly conversions: ConversionsService) {}

  @StaffWrite(CONVERSION_WRITES.register)
  register(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: RegisterConversionDto,
    @CurrentActor() actor: Actor,
  ): Promise<ConversionResponse> {
    return this.conversions.register(tenant, dto, actor);
  }

  @StaffWrite(CONVERSION_WRITES.preview)
  preview(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: PreviewConversionDto,
  ): Promise<ConversionPreviewResponse> {
    return this.conversions.preview(tenant, dto);
  }

  @StaffWrite(CONVERSION_WRITES.reverse)
  reverse(
    @CurrentTenant() tenant: TenantEntity,
    @Param('conversion_id') conversionId: string,
    @Body() dto: ReverseConversionDto,
    @CurrentActor() actor: Actor,
  ): Promise<ReversalResponse> {
    return this.conversions.reverse(tenant.id, conversionId, dto.reason, actor);
  }
}
