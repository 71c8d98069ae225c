import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsString,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { MAX_PHASES, MAX_UPLINE_TIERS, MAX_WINDOW_DAYS } from '../program';
import { IsAbsentWith, IsValidPhaseList, IsValidTierList } from './tenant-validators';

/** docs/money.md §2, "Qualification": what an upline must have sold to take the tier. */
export class TierQualificationDto {
  /** The least their own referred conversions must sum to, in kopecks. @example 5000000 */
  @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) min_personal_sales_kopecks: number;

  /** Over the last this many UTC days, today included. @example 30 */
  @IsInt() @Min(1) @Max(MAX_WINDOW_DAYS) window_days: number;
}

export class ProgramTierDto {
  /** `referrer`, then `upline_1` … `upline_20`, in chain order. @example "referrer" */
  @IsString() tier: string;

  /** Share of the conversion amount in basis points (1000 = 10 %). @example 1000 */
  @Optional() @IsInt() @Min(0) @Max(10000) percent_bp?: number;

  /** A fixed amount in kopecks, whatever the conversion amount. @example 5000 */
  @Optional() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER) fixed_kopecks?: number;

  /** Upline tiers only: the member takes the tier only with these personal sales. */
  @Optional() @ValidateNested() @Type(() => TierQualificationDto) qualify?: TierQualificationDto;
}

/** One phase of a phased program (docs/money.md §2, "Phases"). */
export class ProgramPhaseDto {
  /** Calendar months this phase pays, from its start (the lead's first conversion for phase 1). @example 12 */
  @Optional() @IsInt() @Min(1) @Max(100_000) months?: number;

  /** How many of the lead's conversions this phase pays. @example 3 */
  @Optional() @IsInt() @Min(1) @Max(100_000) conversions?: number;

  /**
   * The tiers this phase pays, in chain order.
   * @example [{"tier": "referrer", "percent_bp": 2500}]
   */
  @IsArray()
  @ArrayMaxSize(MAX_UPLINE_TIERS + 1)
  @ValidateNested({ each: true })
  @Type(() => ProgramTierDto)
  tiers: ProgramTierDto[];
}

/**
 * The commission plan (docs/money.md §2): `tiers`, or `phases` instead of them. Omitted fields take
 * the defaults.
 */
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

  /**
   * Instead of `tiers`: the phases the lead's conversions pass through, in order; each but the last
   * has `months` or `conversions`. "25 % for 12 months, then 10 %":
   * @example [{"months": 12, "tiers": [{"tier": "referrer", "percent_bp": 2500}]}, {"tiers": [{"tier": "referrer", "percent_bp": 1000}]}]
   */
  @ValidateIf((o: ProgramDto) => o.phases !== undefined)
  @IsAbsentWith('tiers')
  @IsArray()
  @ArrayMaxSize(MAX_PHASES)
  @ValidateNested({ each: true })
  @Type(() => ProgramPhaseDto)
  @IsValidPhaseList()
  phases?: ProgramPhaseDto[];

  /** Hours a bonus stays pending before it is approved automatically; 0: at the next sweep. @example 336 */
  @Optional() @IsInt() @Min(0) @Max(24 * 365) grace_period_hours?: number;

  /**
   * docs/money.md §2, "Compression": a tier whose member is deactivated or does not qualify goes to
   * the next active, qualified member up the chain instead of lapsing (default false).
   * @example false
   */
  @Optional() @IsBoolean() compression?: boolean;
}
