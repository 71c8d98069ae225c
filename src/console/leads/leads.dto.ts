import { IsIn } from 'class-validator';
import { Optional } from '../../common/validation/optional';
import {
  LEAD_SOURCES,
  LEAD_STATUSES,
  type LeadSource,
  type LeadStatus,
} from '../../leads/lead.entity';
import { RecordListQueryDto } from '../lists';

/** The leads list: status, source, partner, period (UTC days), newest first, paginated. */
export class ListLeadsQueryDto extends RecordListQueryDto {
  /** `new`, `processed`, `converted` or `rejected`. @example "new" */
  @Optional() @IsIn(LEAD_STATUSES) status?: LeadStatus;

  /** `federation`, `lead_form`, `referral_link` or `promo_code`. @example "lead_form" */
  @Optional() @IsIn(LEAD_SOURCES) source?: LeadSource;
}

export const LEAD_FILTERS = ['status', 'source', 'user_id', 'from', 'to'] as const;
