import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  IsUrl,
  MaxLength,
} from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { PageQueryDto } from '../../common/http/pagination.dto';
import { EVENT_TYPES, type EventType } from '../../outbox/event-types';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../webhook-delivery.entity';

export class PutWebhookDto {
  /** The receiver; https only. @example "https://acme.example/webhooks/referrals" */
  @IsString()
  @MaxLength(2048)
  @IsUrl({ require_protocol: true, require_tld: false, protocols: ['http', 'https'] })
  url: string;

  /** Event types to receive. @example ["lead.created", "bonus.approved", "conversion.cascaded"] */
  @IsArray()
  @ArrayMaxSize(EVENT_TYPES.length)
  @IsIn(EVENT_TYPES, { each: true })
  events: EventType[];

  /** @example true */
  @Optional() @IsBoolean() enabled?: boolean;
}

export class ListWebhookEventsQueryDto extends PageQueryDto {
  /** @example "dead" */
  @Optional() @IsIn(DELIVERY_STATUSES) status?: DeliveryStatus;
}
