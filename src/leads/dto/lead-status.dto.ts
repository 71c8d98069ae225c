import { IsIn, IsString, Length } from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { LEAD_STATUSES, type LeadStatus } from '../lead.entity';

export class ChangeLeadStatusDto {
  /** `processed` or `rejected` (`converted` comes only from a conversion). @example "processed" */
  @IsIn(LEAD_STATUSES) status: LeadStatus;

  /** @example "Customer could not be reached" */
  @Optional() @IsString() @Length(1, 500) reason?: string;
}
