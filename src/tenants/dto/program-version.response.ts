import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/http/pagination.dto';
import { ProgramResponse } from './tenant.response';

export class ProgramVersionActorResponse {
  /** `platform`, `staff`, `tenant_key` or `system`. @example "staff" */ type: string;
  /** @example "Anna (marketing)" */ name: string;
}

export class ProgramVersionResponse {
  /** @example "prv_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ program_version_id: string;
  /** Whose program: `"default"` (the tenant's), `{group_id}` or `{offer_id}`. */
  @ApiProperty({
    oneOf: [
      { type: 'string', enum: ['default'] },
      {
        type: 'object',
        properties: { group_id: { type: 'string' } },
        required: ['group_id'],
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: { offer_id: { type: 'string' } },
        required: ['offer_id'],
        additionalProperties: false,
      },
    ],
    example: 'default',
  })
  target: 'default' | { group_id: string } | { offer_id: string };
  /** The program from then on; null when a group or offer went back to the tenant's default. */
  program: ProgramResponse | null;
  /** @example "2026-11-21T09:30:00.000Z" */ effective_at: string;
  /** Who made the change; null for versions whose author is not known. */
  actor: ProgramVersionActorResponse | null;
}

export class ProgramVersionListResponse {
  items: ProgramVersionResponse[];
  pagination: PaginationResponse;
}
