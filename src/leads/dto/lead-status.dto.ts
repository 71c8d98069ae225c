import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { LEAD_STATUSES, type LeadStatus } from '../lead.entity';

export class ChangeLeadStatusDto {
  /** `processed` or `rejected` (`converted` comes only from a conversion). @example "processed" */
  @IsIn(LEAD_STATUSES) status: LeadStatus;

  /** @example "Customer could not be reached" */
  @IsOptional() @IsString() @Length(1, 500) reason?: string;
}
