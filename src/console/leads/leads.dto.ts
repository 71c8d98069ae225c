import { Transform } from 'class-transformer';
import { IsIn, IsString, Length } from 'class-validator';
import { Optional } from '../../common/validation/optional';
import {
  LEAD_SOURCES,
  LEAD_STATUSES,
  type LeadSource,
  type LeadStatus,
} from '../../leads/lead.entity';
import { RecordListQueryDto } from '../record-list.dto';

/** The leads list: status, source, partner, period (UTC days), newest first, paginated. */
export class ListLeadsQueryDto extends RecordListQueryDto {
  /** `new`, `processed`, `converted` or `rejected`. @example "new" */
  @Optional() @IsIn(LEAD_STATUSES) status?: LeadStatus;

  /** `federation`, `lead_form`, `referral_link` or `promo_code`. @example "lead_form" */
  @Optional() @IsIn(LEAD_SOURCES) source?: LeadSource;
}

export const LEAD_FILTERS = ['status', 'source', 'user_id', 'from', 'to'] as const;

/** The leads page's status form: `processed` or `rejected`, with an optional reason. */
export class LeadStatusForm {
  @IsIn(['processed', 'rejected']) status: 'processed' | 'rejected';

  /** Why (told in `lead.status_changed`'s audit entry); blank is none. */
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.trim() || undefined : value,
  )
  @Optional()
  @IsString()
  @Length(1, 500)
  reason?: string;

  /** The list's query (its filters and page), kept by the redirect back. */
  @Optional() @IsString() back?: string;
}
