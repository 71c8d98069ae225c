import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsObject, IsString, Length, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/http/pagination.dto';
import { EmbedQueryDto } from '../../embed/dto/embed-queries.dto';
import { Optional } from '../../common/validation/optional';
import { GROUP_ID, GROUP_SLUG } from '../../groups/dto/group-requests.dto';
import { KeepAsSent } from '../../leads/dto/create-lead.dto';
import { APPLICATION_STATUSES, type ApplicationStatus } from '../application.entity';

/** The application form (docs/partners.md, "Applications"): the Embed endpoint's body. */
export class SubmitApplicationDto {
  /** The slug of the group applied to; it must take applications. Default `default`. @example "bloggers" */
  @Optional()
  @IsString()
  @Matches(GROUP_SLUG, { message: 'must be a group slug' })
  group?: string;

  /** Where the confirmation link is mailed. @example "anna@example.com" */
  @IsEmail() @MaxLength(254) email: string;

  /** @example "Anna Petrova" */
  @IsString() @Length(1, 200) full_name: string;

  /** One string per question of the group (`signup.fields[].name`); required ones must be answered. */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { site: 'https://anna.example', audience: 'Blog' },
  })
  @KeepAsSent()
  @IsObject()
  answers: Record<string, unknown>;

  /** The `signed_ref` of the recruiting partner's link, if the applicant came through one. @example "eyJ0Ijoi….Qm9n…" */
  @Optional() @IsString() @Length(1, 1024) ref?: string;
}

export class ListApplicationsQueryDto extends PageQueryDto {
  /** Only this status; unconfirmed applications are listed only when asked for. @example "pending" */
  @Optional() @IsIn(APPLICATION_STATUSES) status?: ApplicationStatus;

  /** Only applications to this group. @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional() @Matches(GROUP_ID, { message: 'must be a group id' }) group_id?: string;
}

export class ApproveApplicationDto {
  /** The group the new partner joins; default the group applied to. @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  @Optional() @Matches(GROUP_ID, { message: 'must be a group id' }) group_id?: string;
}

export class RejectApplicationDto {
  /** Why; kept with the application and sent in `partner.rejected`. @example "Not a fit for the program" */
  @IsString() @Length(1, 500) reason: string;
}

/** The application form widget's read: which group's form. */
export class ApplicationFormQueryDto extends EmbedQueryDto {
  /** The group's slug; default `default`. @example "bloggers" */
  @Optional()
  @IsString()
  @Matches(GROUP_SLUG, { message: 'must be a group slug' })
  group?: string;
}
