import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ListWebhookEventsQueryDto, PutWebhookDto } from './dto/webhook.dto';
import {
  WebhookDeliveryListResponse,
  WebhookEndpointResponse,
  WebhookEventDetailResponse,
  WebhookSecretResponse,
  WebhookTestResponse,
} from './dto/webhook.response';
import { WebhooksService } from './webhooks.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/webhook')
export class WebhooksAdminController {
  constructor(private readonly webhooks: WebhooksService) {}

  /** Sets the receiver (https), the event selection and the enabled flag; the secret is shown on first creation only. */
  @Put()
  @Admin('owner')
  @ApiProblems(400, 401, 403, 404, [422, 'insecure_webhook_url'], [422, 'webhook_target_forbidden'])
  put(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: PutWebhookDto,
    @CurrentActor() actor: Actor,
  ): Promise<WebhookEndpointResponse> {
    return this.webhooks.put(tenant.id, dto, actor);
  }

  /** The receiver configuration (extends README.md, "API overview"); never the secret. */
  @Get()
  @Admin('viewer')
  @ApiProblems(401, 403, [404, 'not_found'])
  get(@CurrentTenant() tenant: TenantEntity): Promise<WebhookEndpointResponse> {
    return this.webhooks.get(tenant.id);
  }

  /** Rotates the secret; the previous one keeps signing (X-Service-Signature-Previous) for 24 h. */
  @Post('secret')
  @HttpCode(200)
  @Admin('owner')
  @ApiProblems(401, 403, [404, 'not_found'])
  rotate(
    @CurrentTenant() tenant: TenantEntity,
    @CurrentActor() actor: Actor,
  ): Promise<WebhookSecretResponse> {
    return this.webhooks.rotateSecret(tenant.id, actor);
  }

  /** Sends one webhook.test event at once, whatever the selection, and reports the answer. */
  @Post('test')
  @HttpCode(200)
  @Admin('owner')
  @ApiProblems(401, 403, [404, 'not_found'])
  test(
    @CurrentTenant() tenant: TenantEntity,
    @CurrentActor() actor: Actor,
  ): Promise<WebhookTestResponse> {
    return this.webhooks.test(tenant.id, actor);
  }

  /** Deliveries, newest first, filtered by status. */
  @Get('events')
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: ListWebhookEventsQueryDto,
  ): Promise<WebhookDeliveryListResponse> {
    return this.webhooks.listEvents(tenant.id, query);
  }

  /** The envelope as delivered and every attempt. */
  @Get('events/:event_id')
  @Admin('viewer')
  @ApiProblems(401, 403, [404, 'event_not_found'])
  detail(
    @CurrentTenant() tenant: TenantEntity,
    @Param('event_id') eventId: string,
  ): Promise<WebhookEventDetailResponse> {
    return this.webhooks.eventDetail(tenant.id, eventId);
  }

  /** One fresh attempt with the same event_id and body; 202, made by a worker. */
  @Post('events/:event_id/replay')
  @HttpCode(202)
  @Admin('owner')
  @ApiProblems(401, 403, [404, 'event_not_found'], [409, 'conflict'])
  replay(
    @CurrentTenant() tenant: TenantEntity,
    @Param('event_id') eventId: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    return this.webhooks.replay(tenant.id, eventId, actor);
  }
}
