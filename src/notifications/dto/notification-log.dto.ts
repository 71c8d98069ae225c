import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { PageQueryDto, PaginationResponse } from '../../common/http/pagination.dto';
import { Optional } from '../../common/validation/optional';
import { NOTIFICATION_TYPES } from '../notification-preference.entity';

export const LOG_STATUSES = ['queued', 'sent', 'failed', 'suppressed'] as const;
export const LOG_TYPES = [...NOTIFICATION_TYPES, 'digest'] as const;

/** `GET …/notifications`: the delivery log, newest first, filtered. */
export class NotificationLogQueryDto extends PageQueryDto {
  /** The member's `usr_…` or `mbr_…`. @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional() @IsString() @Length(1, 128) user_id?: string;

  @ApiProperty({ required: false, enum: LOG_STATUSES })
  @Optional()
  @IsIn(LOG_STATUSES)
  status?: (typeof LOG_STATUSES)[number];

  @ApiProperty({ required: false, enum: LOG_TYPES })
  @Optional()
  @IsIn(LOG_TYPES)
  type?: (typeof LOG_TYPES)[number];
}

/** One mail of the delivery log. */
export class NotificationResponse {
  /** @example "ntf_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ notification_id: string;
  /** The member's `mbr_…` (null: a rejected applicant). @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  user_id: string | null;
  @ApiProperty({ enum: LOG_TYPES, example: 'payout.paid' }) type: string;
  @ApiProperty({ enum: LOG_STATUSES, example: 'sent' }) status: string;
  /** @example "anna@example.com" */ to: string;
  /** As last sent (null until the first attempt). @example "Acme: we paid you 1 234,56 ₽" */
  subject: string | null;
  /** @example 1 */ attempts: number;
  /** @example "2026-11-21T09:30:00.000Z" */ sent_at: string | null;
  /** The last failure's SMTP answer or error. @example null */ last_error: string | null;
  /** `Message-ID`, the same for every attempt and resend. @example "<ntf.3f2a…@refs.example>" */
  message_id: string;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class NotificationListResponse {
  items: NotificationResponse[];
  pagination: PaginationResponse;
}

/** `POST …/notifications/digests`: how many digests were written (and are being sent). */
export class DigestsResponse {
  /** @example 3 */ digests: number;
}
