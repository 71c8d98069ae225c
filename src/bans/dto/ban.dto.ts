import { IsString, Length } from 'class-validator';

export class BanPartnerDto {
  /** Why the partner is banned; kept with the member and in the audit log. @example "Self-referral ring" */
  @IsString() @Length(1, 500) reason: string;
}

export class BanResponse {
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ service_user_id: string;
  /** False while banned. @example false */ is_active: boolean;
  /** @example true */ banned: boolean;
  /** @example "2026-11-25T18:00:00.000Z" */ banned_at: string | null;
  /** @example "Self-referral ring" */ ban_reason: string | null;
  /** The pending bonuses the ban rejected (reason `partner_banned`). @example ["bns_01JD0Z6V2Y8K3M4N5P6Q7R8S9T"] */
  rejected_bonus_ids: string[];
}
