import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Length, Matches, Max, Min, NotEquals } from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { IsInstant, IsNotBefore } from '../../common/http/instant';
import { PageQueryDto } from '../../common/http/pagination.dto';
import { MEMBER_REF, MEMBER_REF_MESSAGE } from '../../members/dto/upsert-user.dto';
import { BONUS_STATUSES, type BonusStatus } from '../bonus.entity';

export class ListBonusesQueryDto extends PageQueryDto {
  /** @example "pending" */
  @Optional() @IsIn(BONUS_STATUSES) status?: BonusStatus;

  /** docs/fraud.md: only bonuses under review (`flagged`) or cleared by staff. @example "flagged" */
  @Optional() @IsIn(['flagged', 'cleared']) review?: 'flagged' | 'cleared';

  /** Only this partner's bonuses (`usr_…` or `mbr_…`). @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional()
  @Matches(MEMBER_REF, { message: MEMBER_REF_MESSAGE })
  user_id?: string;

  /**
   * Only bonuses created at or after this instant (**inclusive**). A day, `2026-11-01` (its 00:00
   * UTC), or a date and time `YYYY-MM-DDTHH:MM[:SS[.sss]]` with `Z` or `±HH:MM` (none: UTC), to
   * the millisecond like every `created_at`. Anything else: 400 `validation_failed`.
   * @example "2026-11-01"
   */
  @Optional() @IsInstant() created_from?: string;

  /**
   * Only bonuses created before this instant (**exclusive**), in the same forms: `created_from=
   * 2026-11-01&created_to=2026-12-01` is November, and a bonus created at exactly `created_to` is
   * left out (it belongs to the next range). Equal to `created_from`: an empty list; before it:
   * 400 `validation_failed`. Either bound may be given alone.
   * @example "2026-12-01"
   */
  @Optional() @IsInstant() @IsNotBefore('created_from') created_to?: string;
}

export class CreateManualBonusDto {
  /** The partner (`usr_…` or `mbr_…`). @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Matches(MEMBER_REF, { message: MEMBER_REF_MESSAGE }) user_id: string;

  /** Kopecks; negative for an adjustment, never 0. @example 50000 */
  // Declared by hand: the Swagger plugin left this field out of the document (found by the fuzz).
  @ApiProperty({
    description: 'Kopecks; negative for an adjustment, never 0.',
    type: 'integer',
    minimum: -Number.MAX_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 50000,
  })
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
