import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/http/pagination.dto';
import { SignupFieldResponse } from '../../groups/dto/group.response';
import { APPLICATION_STATUSES, type ApplicationStatus } from '../application.entity';

export class ApplicationSubmittedResponse {
  /** @example "apl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ application_id: string;
  /** `unconfirmed` until the mailed link is confirmed. @example "unconfirmed" */
  @ApiProperty({ enum: APPLICATION_STATUSES })
  status: ApplicationStatus;
}

export class ApplicationResponse {
  /** @example "apl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ application_id: string;
  /** @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ group_id: string;
  /** @example "anna@example.com" */ email: string;
  /** @example "Anna Petrova" */ full_name: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { site: 'https://anna.example' },
  })
  answers: Record<string, string>;
  @ApiProperty({ enum: APPLICATION_STATUSES })
  status: ApplicationStatus;
  /** The recruiting partner's service user id, or null. @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  referrer_user_id: string | null;
  /** The new partner's service user id once approved, else null. @example null */
  user_id: string | null;
  /** The rejection's reason, else null. @example null */
  reason: string | null;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** When it was approved or rejected, else null. @example null */
  decided_at: string | null;
}

export class ApplicationListResponse {
  items: ApplicationResponse[];
  pagination: PaginationResponse;
}

/** What the application form asks, for a widget that renders it. */
export class ApplicationFormResponse {
  /** @example "bloggers" */ group: string;
  /** @example "Bloggers" */ name: string;
  /** The group's own questions, in order: one answer each in `answers`. */
  fields: SignupFieldResponse[];
}
