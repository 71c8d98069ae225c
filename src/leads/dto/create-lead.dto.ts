import { ApiProperty } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsEmail,
  IsObject,
  IsString,
  Length,
  Matches,
  MaxLength,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { ClientHintsDto } from '../../fraud/client-hints.dto';
import { MEMBER_REF, MEMBER_REF_MESSAGE } from '../../members/dto/upsert-user.dto';

/**
 * Free-form JSON as the client sent it: class-transformer would otherwise walk into it and drop
 * keys it treats as special (`constructor`, `toString`, …), silently changing the data.
 */
export const KeepAsSent = () =>
  Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => obj[key], {
    toClassOnly: true,
  });

export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_BYTES = 4096;

/** README.md, "API overview": a JSON object of at most 50 top-level keys and 4 KiB serialised. */
export function IsLeadMetadata(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isLeadMetadata',
      target: object.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= METADATA_MAX_KEYS &&
          Buffer.byteLength(JSON.stringify(value)) <= METADATA_MAX_BYTES,
        defaultMessage: () =>
          `must be an object of at most ${METADATA_MAX_KEYS} keys and ${METADATA_MAX_BYTES} bytes`,
      },
    });
}

export class LeadContactDto {
  /** @example "Ivan Petrov" */
  @IsString() @Length(1, 200) name: string;

  /** Required unless `phone` is given. @example "ivan@example.com" */
  @ValidateIf((o: LeadContactDto) => o.email !== undefined || o.phone === undefined)
  @IsEmail({}, { message: 'must be an email (email or phone is required)' })
  @MaxLength(254)
  email?: string;

  /** Required unless `email` is given. @example "+79001234567" */
  @ValidateIf((o: LeadContactDto) => o.phone !== undefined || o.email === undefined)
  @Matches(/^\+?[0-9 ()-]{5,32}$/, {
    message: 'must be a phone number (email or phone is required)',
  })
  phone?: string;
}

/** What every way of creating a lead sends: the contact, the offer and free-form metadata. */
export class LeadBodyDto {
  @ValidateNested() @Type(() => LeadContactDto) @IsObject() contact: LeadContactDto;

  /** @example "ofr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional() @IsString() @Length(1, 64) offer_id?: string;

  /** Free-form key/value data, returned in lead.created. */
  @ApiProperty({
    required: false,
    type: Object,
    additionalProperties: true,
    example: { utm_source: 'newsletter' },
  })
  @Optional()
  @KeepAsSent()
  @IsLeadMetadata()
  metadata?: Record<string, unknown>;
}

export class CreateLeadDto extends LeadBodyDto {
  /**
   * The referring partner: a service user id, or the member's `mbr_…` surrogate.
   * @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T"
   */
  @Matches(MEMBER_REF, { message: MEMBER_REF_MESSAGE })
  referrer_user_id: string;

  /** The customer's browser, for the risk signals (docs/fraud.md). */
  @Optional() @ValidateNested() @Type(() => ClientHintsDto) @IsObject() client?: ClientHintsDto;
}
