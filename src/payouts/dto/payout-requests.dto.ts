import { IsIn, IsString, Length, Matches } from 'class-validator';
import { PageQueryDto } from '../../common/http/pagination.dto';
import { Optional } from '../../common/validation/optional';
import { MEMBER_REF, MEMBER_REF_MESSAGE } from '../../members/dto/upsert-user.dto';
import { PAYOUT_STATUSES, type PayoutStatus } from '../payout.entity';

export class ListPayoutsQueryDto extends PageQueryDto {
  /** @example "pending" */
  @Optional() @IsIn(PAYOUT_STATUSES) status?: PayoutStatus;

  /** Only the payouts of this run. @example "run_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional() @IsString() @Length(1, 64) run_id?: string;

  /** Only this partner's payouts (`usr_…` or `mbr_…`). @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional()
  @Matches(MEMBER_REF, { message: MEMBER_REF_MESSAGE })
  user_id?: string;
}

export class MarkPayoutPaidDto {
  /** The bank's or provider's reference of the transfer. @example "PP-2026-11-000123" */
  @IsString() @Length(1, 200) reference: string;
}

export class MarkPayoutFailedDto {
  /** Why the transfer failed or came back. @example "account closed" */
  @IsString() @Length(1, 500) reason: string;
}
