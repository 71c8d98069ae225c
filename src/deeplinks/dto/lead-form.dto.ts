import { IsString, Length } from 'class-validator';
import { LeadBodyDto } from '../../leads/dto/create-lead.dto';

/** The lead-form widget's body (docs/embedding.md §4): the partner is named by a signed ref. */
export class LeadFormDto extends LeadBodyDto {
  /** The `signed_ref` of a referral link (the page's `?ref=`). @example "eyJ0Ijoi….Qm9n…" */
  @IsString() @Length(1, 1024) ref: string;
}
