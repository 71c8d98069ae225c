import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Length, MaxLength } from 'class-validator';
import { Optional } from '../../common/validation/optional';

/** Who to erase among the tenant's referred customers: at least one field. */
export class EraseCustomerDto {
  /** Matched any case against leads' contact email. @example "olga.s@example.com" */
  @Optional() @IsEmail() @MaxLength(254) email?: string;
  /** Matched by its digits against leads' contact phone. @example "+7 999 123-45-67" */
  @Optional() @IsString() @Length(3, 64) phone?: string;
  /** The `customer.external_id` a conversion gave. @example "cust-5521" */
  @Optional() @IsString() @Length(1, 200) external_id?: string;
}

export class MemberErasedResponse {
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ service_user_id: string;
  /** When the member was erased; the same on a repeat. @example "2026-12-07T10:00:00.000Z" */
  erased_at: string;
}

export class CustomersErasedResponse {
  /** Leads whose contact was erased. @example 2 */ leads: number;
  /** Conversions of those leads whose client data was erased. @example 3 */ conversions: number;
}

/** Every personal field held about a member in this tenant (docs/privacy.md, "Access"). */
export class PersonalDataResponse {
  /** @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "2026-12-07T10:00:00.000Z" */ exported_at: string;
  /** The member's own fields and their service user's email and VK id. */
  @ApiProperty({ type: Object }) profile: Record<string, unknown>;
  /** Payout details in full, or null. */
  @ApiProperty({ type: Object, nullable: true }) payout_details: Record<string, unknown> | null;
  /** Partner applications with their answers. */
  @ApiProperty({ type: [Object] }) applications: unknown[];
  /** Emails sign-in codes were sent to, and when. */
  @ApiProperty({ type: [Object] }) sign_in_codes: unknown[];
  /** Popup and portal sessions (times only). */
  @ApiProperty({ type: [Object] }) sessions: unknown[];
  /** The member's short links and their texts. */
  @ApiProperty({ type: [Object] }) links: unknown[];
}
