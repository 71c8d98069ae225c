import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsString, Length, ValidateNested } from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { IsLeadMetadata, KeepAsSent, LeadContactDto } from '../../leads/dto/create-lead.dto';

/** The lead-form widget's body (docs/embedding.md §4): the partner is named by a signed ref. */
export class LeadFormDto {
  /** The `signed_ref` of a referral link (the page's `?ref=`). @example "eyJ0Ijoi….Qm9n…" */
  @IsString() @Length(1, 1024) ref: string;

  @ValidateNested() @Type(() => LeadContactDto) @IsObject() contact: LeadContactDto;

  /** @example "ofr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional() @IsString() @Length(1, 64) offer_id?: string;

  @ApiProperty({
    required: false,
    type: Object,
    additionalProperties: true,
    example: { page: 'spring' },
  })
  @Optional()
  @KeepAsSent()
  @IsLeadMetadata()
  metadata?: Record<string, unknown>;
}
