import { IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { Optional } from '../../common/validation/optional';

export class RegisterConversionDto {
  /** @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @IsString() @Length(1, 64) lead_id: string;

  /** The order amount in kopecks, > 0. @example 1250000 */
  @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) amount_kopecks: number;

  /** @example "RUB" */
  @Matches(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 code such as RUB' }) currency: string;

  /** The tenant's own order id; unique per tenant. @example "order-2026-000123" */
  @IsString() @Length(1, 128) external_order_id: string;
}

export class PreviewConversionDto {
  /** @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @IsString() @Length(1, 64) lead_id: string;

  /** @example 1250000 */
  @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) amount_kopecks: number;

  /** @example "RUB" */
  @Matches(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 code such as RUB' }) currency: string;

  /** Optional here; ignored. @example "order-2026-000123" */
  @Optional() @IsString() @Length(1, 128) external_order_id?: string;
}

export class ReverseConversionDto {
  /** Why the order was cancelled (return, refund…). @example "refund" */
  @IsString() @Length(1, 500) reason: string;
}
