import { Body, Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { AdminPost } from '../common/http/write-routes';
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

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/conversions')
export class ConversionsAdminController {
  constructor(private readonly conversions: ConversionsService) {}

  /** The staff equivalent of the federation register (docs/money.md §4); in the audit log. */
  @AdminPost(
    'register',
    'manager',
    [404, 'lead_not_found'],
    [409, 'external_order_id_conflict'],
    [409, 'invalid_transition'],
  )
  register(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: RegisterConversionDto,
    @CurrentActor() actor: Actor,
  ): Promise<ConversionResponse> {
    return this.conversions.register(tenant, dto, actor);
  }

  /** The staff equivalent of the federation preview; writes nothing. */
  @AdminPost('preview', 'viewer', [404, 'lead_not_found'], [409, 'invalid_transition'])
  preview(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: PreviewConversionDto,
  ): Promise<ConversionPreviewResponse> {
    return this.conversions.preview(tenant, dto);
  }

  /** The staff equivalent of the federation reversal; recorded in the audit log. */
  @AdminPost(
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
    return this.conversions.reverse(tenant.id, conversionId, dto.reason, actor);
  }
}
