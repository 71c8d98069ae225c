import { IsIn, IsString, Length } from 'class-validator';
import { STAFF_ROLES, type StaffRole } from '../../common/access/actor';

export class CreateStaffTokenDto {
  /** Who holds the token, for the audit log. @example "Alice (finance)" */
  @IsString() @Length(1, 200) name: string;

  /** `owner`: everything; `manager`: bonuses, leads, conversions, offers, read all; `viewer`: read only. @example "manager" */
  @IsIn(STAFF_ROLES) role: StaffRole;
}

export class StaffTokenResponse {
  /** @example "stt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ token_id: string;
  /** @example "Alice (finance)" */ name: string;
  /** @example "manager" */ role: string;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** @example null */ revoked_at: string | null;
}

export class CreatedStaffTokenResponse {
  /** @example "stt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ token_id: string;
  /** Shown only in this response. @example "stf_Qw3r…" */ token: string;
  /** @example "Alice (finance)" */ name: string;
  /** @example "manager" */ role: string;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class StaffTokenListResponse {
  items: StaffTokenResponse[];
}
