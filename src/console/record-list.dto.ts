import { Matches, Validate, type ValidationArguments, ValidatorConstraint } from 'class-validator';
import { PageQueryDto } from '../common/http/pagination.dto';
import { Optional } from '../common/validation/optional';
import { MEMBER_REF, MEMBER_REF_MESSAGE } from '../members/dto/upsert-user.dto';
import { isDay } from './stats/stats.dto';

/**
 * The query the console's lists of records share (conversions, leads): a partner, a period of UTC
 * days (both inclusive) and pages; each list adds its own filters. The same conditions serve the
 * list, its API twin and its CSV link (pages/lists.ts, read-model/conditions.ts).
 */

@ValidatorConstraint({ name: 'isDay' })
class RealDay {
  validate(value: unknown) {
    // PostgreSQL has no year 0.
    return isDay(value) && value >= '0001-01-01';
  }
  defaultMessage(args: ValidationArguments) {
    return `${args.property} must be a day YYYY-MM-DD`;
  }
}

@ValidatorConstraint({ name: 'notBeforeFrom' })
class NotBeforeFrom {
  validate(value: unknown, args: ValidationArguments) {
    const from = (args.object as { from?: unknown }).from;
    return !isDay(from) || !isDay(value) || value >= from;
  }
  defaultMessage() {
    return 'to must not be before from';
  }
}

export class RecordListQueryDto extends PageQueryDto {
  /** Only this partner's (the referrer of the lead): `mbr_…` or `usr_…`. */
  @Optional()
  @Matches(MEMBER_REF, { message: MEMBER_REF_MESSAGE })
  user_id?: string;

  /** First day (inclusive, UTC). @example "2026-11-01" */
  @Optional() @Validate(RealDay) from?: string;

  /** Last day (inclusive, UTC). @example "2026-11-30" */
  @Optional() @Validate(RealDay) @Validate(NotBeforeFrom) to?: string;
}
