import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsObject,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ClientHintsDto } from '../../fraud/client-hints.dto';
import { Optional } from '../../common/validation/optional';
import { MEMBER_ROLES, type MemberRole } from '../member.entity';

export const SERVICE_USER_ID = /^usr_[0-9A-HJKMNP-TV-Z]{26}$/;
/**
 * A member named in a request: its service user id (`usr_…`) or its tenant surrogate (`mbr_…`);
 * either names the same member of this tenant (README, "Ids").
 */
export const MEMBER_REF = /^(usr|mbr)_[0-9A-HJKMNP-TV-Z]{26}$/;
export const MEMBER_REF_MESSAGE = 'must be a member id (usr_… or mbr_…)';

export class UpsertUserDto {
  /** The tenant's own user id; the upsert key. @example "u-1001" */
  @IsString() @Length(1, 128) external_id: string;

  /** Social network id; links the same person across tenants. @example "id123456" */
  @Optional() @IsString() @Length(1, 128) vk_id?: string;

  /** @example "maria@example.com" */
  @Optional() @IsEmail() @MaxLength(254) email?: string;

  /** @example "Maria Ivanova" */
  @Optional() @IsString() @Length(1, 200) full_name?: string;

  /** Whether the tenant has verified `email`; only a verified email links people across tenants. @example true */
  @Optional() @IsBoolean() email_verified?: boolean;

  /**
   * The member's role in the partner program: shown in the widgets as
   * `badge.role_label` and `partnership_role`. New members default to `partner`; absent leaves
   * the role as it is. @example "ambassador"
   */
  @Optional() @IsIn(MEMBER_ROLES) role?: MemberRole;

  /**
   * The person who referred this user: a service user id, or the member's
   * `mbr_…` surrogate. Set once: a member's referrer never changes afterwards.
   * @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T"
   */
  @Optional()
  @Matches(MEMBER_REF, { message: MEMBER_REF_MESSAGE })
  referrer_user_id?: string;

  /**
   * Instead of referrer_user_id: the `signed_ref` a visitor arrived with (from a referral link);
   * its referrer is used. A changed byte or another tenant's ref is 422 invalid_ref.
   * @example "eyJ0Ijoib3JnXzAxSkQwWjZWMlk4SzNNNE41UDZRN1I4UzlUIn0.Qm9nVXNfU2lnbmF0dXJl"
   */
  @Optional() @IsString() @Length(1, 1024) signed_ref?: string;

  /**
   * The slug of the partner group the member belongs to (docs/partners.md): a new member joins
   * it, an existing one moves to it. Omitted: new members join `default`, others stay. An unknown
   * slug is 404 group_not_found. @example "bloggers"
   */
  @Optional() @IsString() @Length(1, 63) group?: string;

  /** The user's browser (docs/fraud.md): `client.ip` is kept as the member's last seen IP. */
  @Optional() @ValidateNested() @Type(() => ClientHintsDto) @IsObject() client?: ClientHintsDto;
}
