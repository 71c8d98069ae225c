import { PickType } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { FormCheckbox, FormLines, FormList, FormText } from '../../common/pages/form';
import { Optional } from '../../common/validation/optional';
import type { EventType } from '../../outbox/event-types';
import { UpdateTenantDto } from '../../tenants/dto/update-tenant.dto';
import { PutWebhookDto } from '../../webhooks/dto/webhook.dto';

/** Origins and link domains, one per line, under the Admin API's rules for them. */
export class SettingsForm extends PickType(UpdateTenantDto, [
  'allowed_origins',
  'link_domains',
] as const) {
  @FormLines() declare allowed_origins?: string[];
  @FormLines() declare link_domains?: string[];
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
