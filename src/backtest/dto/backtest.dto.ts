import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, Matches, ValidateNested } from 'class-validator';
import { ProgramDto } from '../../tenants/dto/program.dto';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whose program the draft would replace: the tenant's default, a group's or an offer's. */
export type BacktestTarget = 'default' | { group_id: string } | { offer_id: string };

export const BACKTEST_TARGET_SCHEMA: ApiPropertyOptions = {
  oneOf: [
    { type: 'string', enum: ['default'] },
    { type: 'object', properties: { group_id: { type: 'string' } }, required: ['group_id'] },
    { type: 'object', properties: { offer_id: { type: 'string' } }, required: ['offer_id'] },
  ],
};

/** docs/money.md §2, "Backtest": a draft program replayed over a period, nothing written. */
export class BacktestDto {
  /** The program the draft would replace. */
  @ApiProperty({ ...BACKTEST_TARGET_SCHEMA, example: 'default' })
  @IsDefined()
  target: BacktestTarget;

  /** The draft, as `PATCH …/tenants/:slug` takes a program (omitted fields take the defaults). */
  @IsDefined()
  @ValidateNested()
  @Type(() => ProgramDto)
  program: ProgramDto;

  /** First day replayed (UTC, inclusive). @example "2026-09-08" */
  @Matches(DAY, { message: 'must be a day YYYY-MM-DD' })
  from: string;

  /** Last day replayed (UTC, inclusive), at most 365 days after `from`. @example "2026-12-06" */
  @Matches(DAY, { message: 'must be a day YYYY-MM-DD' })
  to: string;
}

export class BacktestFiguresResponse {
  /** What the conversions' bonuses add up to. @example 1234500 */ commission_kopecks: number;
  /** The same per tier. @example {"referrer": 1000000, "upline_1": 234500} */
  @ApiProperty({ type: Object, additionalProperties: { type: 'integer' } })
  by_tier: Record<string, number>;
}

export class BacktestPartnerResponse {
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example 120000 */ actual_kopecks: number;
  /** @example 180000 */ draft_kopecks: number;
}

export class BacktestResponse {
  /** The program the draft replaces. */
  @ApiProperty({ ...BACKTEST_TARGET_SCHEMA, example: 'default' })
  target: BacktestTarget;
  /** @example "2026-09-08" */ from: string;
  /** @example "2026-12-06" */ to: string;
  /** @example "RUB" */ currency: string;
  /** Conversions replayed: registered in the period, not reversed, governed by the target. @example 4210 */
  conversions: number;
  /** Conversions the target governs in another currency, left out. @example 0 */ skipped: number;
  /** What those conversions' bonuses were, whatever their status since. */
  actual: BacktestFiguresResponse;
  /** What the draft would have paid them. */
  draft: BacktestFiguresResponse;
  /** `draft.commission_kopecks − actual.commission_kopecks`. @example 61700 */
  delta_kopecks: number;
  /** The 20 partners whose pay changes most (largest absolute change first). */
  partners: BacktestPartnerResponse[];
}
