import { ApiProperty } from '@nestjs/swagger';
import { IsObject } from 'class-validator';
import type { NotificationMode } from '../notification-preference.entity';

/**
 * `PUT …/users/:user_id/notifications`: the modes to set, by mail type; the types not given keep
 * theirs. An unknown type or mode is 400 `validation_failed` naming `preferences.<type>`.
 */
export class UpdateNotificationPreferencesDto {
  /**
   * Mail type → `instant`, `daily` or `off`.
   * @example {"bonus.pending": "off", "payout.paid": "instant"}
   */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['instant', 'daily', 'off'] },
  })
  @IsObject()
  preferences: Record<string, string>;
}

/** A member's mode of every partner mail type (defaults included). */
export class NotificationPreferencesResponse {
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /**
   * Every type with its mode: `bonus.pending`, `bonus.approved`, `payout.paid`,
   * `partner.approved`, `partner.rejected`, `downline.joined`, `bounty.reached`.
   * @example {"bonus.pending": "daily", "bonus.approved": "daily", "payout.paid": "instant", "partner.approved": "instant", "partner.rejected": "instant", "downline.joined": "daily", "bounty.reached": "daily"}
   */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['instant', 'daily', 'off'] },
  })
  preferences: Record<string, NotificationMode>;
}
