import { IsIn, IsString, Length } from 'class-validator';
import { Transform } from 'class-transformer';
import { Optional } from '../../common/validation/optional';
import { RecordListQueryDto } from '../record-list.dto';

export const CONVERSION_STATUSES = ['registered', 'reversed'] as const;

/** The conversions list: status, partner, period (UTC days), newest first, paginated. */
export class ListConversionsQueryDto extends RecordListQueryDto {
  /** `registered` or `reversed`. @example "registered" */
  @Optional() @IsIn(CONVERSION_STATUSES) status?: (typeof CONVERSION_STATUSES)[number];
}

/** The console's reversal form: why (a return, a refund…), 1–500 characters after trimming. */
export class ReverseConversionForm {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 500, { message: 'A reversal needs a reason (at most 500 characters).' })
  reason: string;

  /** The list's query (its filters and page), kept by the redirect back. */
  @Optional() @IsString() back?: string;
}

export const CONVERSION_FILTERS = ['status', 'user_id', 'from', 'to'] as const;
