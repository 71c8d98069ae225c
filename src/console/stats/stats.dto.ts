import { Matches, Validate, type ValidationArguments } from 'class-validator';
import { Optional } from '../../common/validation/optional';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MESSAGE = 'must be a day YYYY-MM-DD';

/** The longest period the overview shows at once (two years of days). */
export const MAX_PERIOD_DAYS = 731;

/** A real calendar day `YYYY-MM-DD` (2026-02-30 is refused). */
export function isDay(value: unknown): value is string {
  if (typeof value !== 'string' || !DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

class RealDay {
  validate(value: unknown) {
    return isDay(value);
  }
  defaultMessage(args: ValidationArguments) {
    return `${args.property} ${DAY_MESSAGE}`;
  }
}

/** The period of the overview: UTC days, both inclusive. */
export class StatsQueryDto {
  /** First day (inclusive, UTC). Default: 29 days before `to`. @example "2026-10-27" */
  @Optional() @Matches(DAY, { message: DAY_MESSAGE }) @Validate(RealDay) from?: string;

  /** Last day (inclusive, UTC). Default: today. @example "2026-11-25" */
  @Optional() @Matches(DAY, { message: DAY_MESSAGE }) @Validate(RealDay) to?: string;
}
