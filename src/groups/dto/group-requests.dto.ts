import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { ProgramDto } from '../../tenants/dto/program.dto';
import { SIGNUP_FIELD_TYPES, type SignupFieldType } from '../group.entity';

/** A group's slug: the tenant's own rule (SPEC 2). */
export const GROUP_SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;
export const GROUP_ID = /^grp_[0-9A-HJKMNP-TV-Z]{26}$/;
export const MAX_SIGNUP_FIELDS = 10;
export const MAX_SELECT_OPTIONS = 50;

export class SignupFieldDto {
  /** The answer's key in an application's `answers`; unique within the group. @example "audience" */
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{0,62}$/, { message: 'must match ^[a-z][a-z0-9_]{0,62}$' })
  name: string;

  /** What the form asks. @example "Where do you publish?" */
  @IsString() @Length(1, 200) label: string;

  /** @example "select" */
  @IsIn(SIGNUP_FIELD_TYPES) type: SignupFieldType;

  /** Whether an application must answer it. @example true */
  @IsBoolean() required: boolean;

  /** The choices of a `select` field (required there, refused elsewhere). @example ["Blog", "YouTube"] */
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SELECT_OPTIONS)
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  options?: string[];
}

/** Whether and how partners may apply to join the group (docs/partners.md). */
export class SignupDto {
  /** The group takes applications. @example false */
  @Optional() @IsBoolean() enabled?: boolean;

  /** Applications are approved as soon as they are confirmed. @example false */
  @Optional() @IsBoolean() auto_approve?: boolean;

  /** The application form's own questions, at most 10. */
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_SIGNUP_FIELDS)
  @ValidateNested({ each: true })
  @IsObject({ each: true })
  @Type(() => SignupFieldDto)
  fields?: SignupFieldDto[];
}

/**
 * Where the group's partners move once they reach every threshold given within `window_days`
 * (SPEC 15, "Promotion"). Stored and validated here; the promotion itself runs elsewhere.
 */
export class PromoteToDto {
  /** @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Matches(GROUP_ID, { message: 'must be a group id (grp_…)' }) group_id: string;

  /** The partner's own referred conversions within the window. @example 10 */
  @Optional() @IsInt() @Min(1) @Max(1_000_000_000) min_conversions?: number;

  /** Their referred revenue within the window, in kopecks. @example 10000000 */
  @Optional() @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) min_revenue_kopecks?: number;

  /** @example 30 */
  @IsInt() @Min(1) @Max(3660) window_days: number;
}

export class CreateGroupDto {
  /** Unique in the tenant; cannot be changed. @example "bloggers" */
  @IsString()
  @Matches(GROUP_SLUG, { message: 'must match ^[a-z0-9][a-z0-9-]{1,62}$' })
  slug: string;

  /** @example "Bloggers" */
  @IsString() @Length(1, 200) name: string;

  /** The group's own program; omitted: the tenant's default pays its partners. */
  @Optional() @IsObject() @ValidateNested() @Type(() => ProgramDto) program?: ProgramDto;

  @Optional() @IsObject() @ValidateNested() @Type(() => SignupDto) signup?: SignupDto;

  @Optional() @IsObject() @ValidateNested() @Type(() => PromoteToDto) promote_to?: PromoteToDto;
}

/** A present value that is not null is validated; absent changes nothing, null clears it. */
const unlessNull = (_o: object, value: unknown) => value !== undefined && value !== null;

/** Any field of the create body but `slug`; `program` and `promote_to` may be null (none). */
export class UpdateGroupDto {
  /** @example "Bloggers" */
  @Optional() @IsString() @Length(1, 200) name?: string;

  /** The group's own program (it replaces the whole program), or null: the tenant's default. */
  @ApiProperty({ required: false, nullable: true, type: () => ProgramDto })
  @ValidateIf(unlessNull)
  @IsObject()
  @ValidateNested()
  @Type(() => ProgramDto)
  program?: ProgramDto | null;

  /** Replaces the whole signup settings (omitted fields take the defaults). */
  @Optional() @IsObject() @ValidateNested() @Type(() => SignupDto) signup?: SignupDto;

  /** The promotion, or null: none. */
  @ApiProperty({ required: false, nullable: true, type: () => PromoteToDto })
  @ValidateIf(unlessNull)
  @IsObject()
  @ValidateNested()
  @Type(() => PromoteToDto)
  promote_to?: PromoteToDto | null;
}

export class MoveMemberDto {
  /** The group the member moves to. @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Matches(GROUP_ID, { message: 'must be a group id (grp_…)' }) group_id: string;
}
