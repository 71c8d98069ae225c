import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsString, Max, Min, ValidateNested } from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { MAX_UPLINE_TIERS } from '../program';
import { IsValidTierList } from './tenant-validators';

export class ProgramTierDto {
  /** `referrer`, then `upline_1` … `upline_20`, in chain order. @example "referrer" */
  @IsString() tier: string;

  /** Share of the conversion amount in basis points (1000 = 10 %). @example 1000 */
  @Optional() @IsInt() @Min(0) @Max(10000) percent_bp?: number;

  /** A fixed amount in kopecks, whatever the conversion amount. @example 5000 */
  @Optional() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER) fixed_kopecks?: number;
}

/** The commission plan (docs/money.md §2). Omitted fields take the defaults. */
export class ProgramDto {
  /** Bonus accrued to the referrer for every new lead, in kopecks. @example 0 */
  @Optional() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER) lead_bonus_kopecks?: number;

  /**
   * Tiers in chain order.
   * @example [{"tier": "referrer", "percent_bp": 1000}, {"tier": "upline_1", "percent_bp": 300}]
   */
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_UPLINE_TIERS + 1)
  @ValidateNested({ each: true })
  @Type(() => ProgramTierDto)
  @IsValidTierList()
  tiers?: ProgramTierDto[];

  /** Hours a bonus stays pending before it is approved automatically; 0: at the next sweep. @example 336 */
  @Optional() @IsInt() @Min(0) @Max(24 * 365) grace_period_hours?: number;
}
