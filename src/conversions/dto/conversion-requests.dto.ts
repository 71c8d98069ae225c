import { Type } from 'class-transformer';
import {
  IsEmail,
  IsInt,
  IsObject,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { ClientHintsDto } from '../../fraud/client-hints.dto';

/** The customer of an order attributed by promo code or ref: at least one field. */
export class ConversionCustomerDto {
  /** The tenant's own customer id. @example "cust-5521" */
  @Optional() @IsString() @Length(1, 128) external_id?: string;

  /** @example "olga@example.com" */
  @Optional() @IsEmail() @MaxLength(254) email?: string;

  /** @example "Olga Smirnova" */
  @Optional() @IsString() @Length(1, 200) name?: string;
}

export class RegisterConversionDto {
  /**
   * The referred lead. Required unless `promo_code` or `signed_ref` names the partner instead
   * (docs/fraud.md); exactly one of the three.
   * @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T"
   */
  @ValidateIf(
    (o: RegisterConversionDto) =>
      o.lead_id !== undefined || (o.promo_code === undefined && o.signed_ref === undefined),
  )
  @IsString()
  @Length(1, 64)
  lead_id?: string;

  /**
   * Instead of `lead_id`: the promo code the customer used (any case); the lead is created for
   * the code's partner, source `promo_code`. @example "SPRING-10"
   */
  @Optional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be 1–64 of A-Z a-z 0-9 _ -' })
  promo_code?: string;

  /**
   * Instead of `lead_id`: the `ref` the customer arrived with; the lead is created for its
   * partner, source `referral_link`. An expired click-stamped ref is 422 `ref_expired`.
   * @example "eyJ0Ijoib3JnXzAx….Qm9n…"
   */
  @Optional() @IsString() @Length(1, 1024) signed_ref?: string;

  /** Required with `promo_code` or `signed_ref` (the new lead's contact); refused with `lead_id`. */
  @Optional()
  @ValidateNested()
  @Type(() => ConversionCustomerDto)
  @IsObject()
  customer?: ConversionCustomerDto;

  /** The customer's browser at checkout, for the risk signals (docs/fraud.md). */
  @Optional() @ValidateNested() @Type(() => ClientHintsDto) @IsObject() client?: ClientHintsDto;

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
