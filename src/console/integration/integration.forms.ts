import { PickType } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { FormCheckbox, FormLines, FormList, FormText } from '../../common/pages/form';
import { Optional } from '../../common/validation/optional';
import type { EmbedAuth } from '../../tenants/tenant.entity';
import type { EventType } from '../../outbox/event-types';
import { UpdateTenantDto } from '../../tenants/dto/update-tenant.dto';
import { PutWebhookDto } from '../../webhooks/dto/webhook.dto';

/**
 * Origins and link domains, one per line, and how the widgets' reads are gated, under the Admin
 * API's rules for them.
 */
export class SettingsForm extends PickType(UpdateTenantDto, [
  'allowed_origins',
  'link_domains',
  'embed_auth',
] as const) {
  @FormLines() declare allowed_origins?: string[];
  @FormLines() declare link_domains?: string[];
  @FormText() declare embed_auth?: EmbedAuth;
}

export class CreateKeyForm {
  @FormText()
  @Optional()
  @IsString()
  @MaxLength(200)
  name?: string;
}

/** The webhook endpoint: `events` repeats (one checkbox each), `enabled` is a checkbox. */
export class WebhookForm extends PutWebhookDto {
  @FormList() declare events: EventType[];
  @FormCheckbox() declare enabled?: boolean;
}
