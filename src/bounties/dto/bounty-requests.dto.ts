import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Length, Matches, Max, Min, ValidateIf } from 'class-validator';
import { IsInstant } from '../../common/http/instant';
import { Optional } from '../../common/validation/optional';
import { GROUP_ID } from '../../groups/dto/group-requests.dto';
import { BOUNTY_METRICS, type BountyMetric } from '../bounty.entity';

export const BOUNTY_ID = /^bty_[0-9A-HJKMNP-TV-Z]{26}$/;

export class CreateBountyDto {
  /** Shown to staff and to the partners it applies to. @example "December sprint" */
  @IsString() @Length(1, 200) name: string;

  /** Only partners of this group; omitted: every partner. @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional() @Matches(GROUP_ID, { message: 'must be a group id (grp_…)' }) group_id?: string;

  /**
   * What counts: the partner's own referred conversions (`conversions`, any currency) or their
   * amount in the bounty's currency (`revenue_kopecks`); reversed conversions never count.
   * @example "conversions"
   */
  @IsIn(BOUNTY_METRICS) metric: BountyMetric;

  /** Reached at this many conversions, or kopecks of revenue. @example 10 */
  @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) threshold: number;

  /** The bonus paid once to each partner who reaches it (0: none, reaching is all). @example 500000 */
  @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER) amount_kopecks: number;

  /** The bonus's currency, and the revenue metric's. @example "RUB" */
  @Matches(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 code such as RUB' }) currency: string;

  /**
   * When conversions start to count (**inclusive**): a day, `2026-12-01` (its 00:00 UTC), or a date
   * and time `YYYY-MM-DDTHH:MM[:SS[.sss]]` with `Z` or `±HH:MM` (none: UTC).
   * @example "2026-12-01"
   */
  @IsInstant() starts_at: string;

  /** When they stop (**exclusive**), after `starts_at`; omitted: open-ended. @example "2027-01-01" */
  @Optional() @IsInstant() ends_at?: string;
}

/** Renames a bounty or ends it: `ends_at` (after `starts_at`) or null, open-ended again. */
export class UpdateBountyDto {
  /** @example "December sprint" */
  @Optional() @IsString() @Length(1, 200) name?: string;

  /** The new end (**exclusive**), or null: open-ended. @example "2026-12-20T12:00Z" */
  @ApiProperty({ required: false, nullable: true, type: String, example: '2026-12-20T12:00Z' })
  @ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)
  @IsInstant()
  ends_at?: string | null;
}
