import {
  IsIn,
  IsInt,
  IsISO8601,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  NotEquals,
} from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { PageQueryDto } from '../../common/http/pagination.dto';
import { MEMBER_REF, MEMBER_REF_MESSAGE } from '../../users/dto/upsert-user.dto';
import { BONUS_STATUSES, type BonusStatus } from '../bonus.entity';

export class ListBonusesQueryDto extends PageQueryDto {
  /** @example "pending" */
  @Optional() @IsIn(BONUS_STATUSES) status?: BonusStatus;

  /** Only this partner's bonuses (`usr_…` or `mbr_…`). @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional()
  @Matches(MEMBER_REF, { message: MEMBER_REF_MESSAGE })
  user_id?: string;

  /** Created at or after (ISO 8601). @example "2026-11-01" */
  @Optional() @IsISO8601({ strict: true }) created_from?: string;

  /** Created before (ISO 8601). @example "2026-12-01" */
  @Optional() @IsISO8601({ strict: true }) created_to?: string;
}

export class CreateManualBonusDto {
  /** The partner (`usr_…` or `mbr_…`). @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Matches(MEMBER_REF, { message: MEMBER_REF_MESSAGE }) user_id: string;

  /** Kopecks; negative for an adjustment, never 0. @example 50000 */
  @IsInt()
  @Min(-Number.MAX_SAFE_INTEGER)
  @Max(Number.MAX_SAFE_INTEGER)
  @NotEquals(0)
  amount_kopecks: number;

  /** @example "RUB" */
  @Matches(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 code such as RUB' }) currency: string;

  /** @example "Bonus for the spring campaign" */
  @IsString() @Length(1, 500) reason: string;
}

export class RejectBonusDto {
  /** Told to the partner in the bonus.rejected event. @example "Order was cancelled" */
  @IsString() @Length(1, 500) reason: string;
}
