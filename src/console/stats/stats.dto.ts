import { Matches, Validate, type ValidationArguments } from 'class-validator';
import { Optional } from '../../common/validation/optional';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MESSAGE = 'must be a day YYYY-MM-DD';

/** The longest period the overview shows at once (two years of days). */
export const MAX_PERIOD_DAYS = 731;
/**
 * The days a period may cover (docs/console.md, "The period"). No program has data before 2000,
 * and a bound far past today keeps every day of a period a plain four-digit year, which sorts
 * and parses as a day everywhere (the year 10000 does neither).
 */
export const FIRST_DAY = '2000-01-01';
export const LAST_DAY = '2100-12-31';
const RANGE_MESSAGE = `must be a day between ${FIRST_DAY} and ${LAST_DAY}`;

/** A real calendar day `YYYY-MM-DD` (2026-02-30 is refused). */
export function isDay(value: unknown): value is string {
  if (typeof value !== 'string' || !DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** A real day between FIRST_DAY and LAST_DAY, both inclusive. */
export function isPeriodDay(value: unknown): value is string {
  return isDay(value) && value >= FIRST_DAY && value <= LAST_DAY;
}

export function periodDayMessage(value: unknown): string {
  return isDay(value) ? RANGE_MESSAGE : DAY_MESSAGE;
}

class PeriodDay {
  validate(value: unknown) {
    return isPeriodDay(value);
  }
  defaultMessage(args: ValidationArguments) {
    return `${args.property} ${periodDayMessage(args.value)}`;
  }
}

/**
 * The period of the overview: UTC days, both inclusive, between 2000-01-01 and 2100-12-31, at
 * most 731 days long.
 */
export class StatsQueryDto {
  /**
   * First day (inclusive, UTC), 2000-01-01 to 2100-12-31. Default: 29 days before `to` (not before
   * 2000-01-01). @example "2026-10-27"
   */
  @Optional() @Matches(DAY, { message: DAY_MESSAGE }) @Validate(PeriodDay) from?: string;

  /**
   * Last day (inclusive, UTC), 2000-01-01 to 2100-12-31, at most 730 days after `from`. Default:
   * today, or 29 days after `from` (not after 2100-12-31). @example "2026-11-25"
   */
  @Optional() @Matches(DAY, { message: DAY_MESSAGE }) @Validate(PeriodDay) to?: string;
}
