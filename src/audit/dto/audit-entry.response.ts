import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/http/pagination.dto';

export class AuditActorResponse {
  /**
   * `platform`, `staff`, `tenant_key`, `system` or `partner` (a partner acting for themselves:
   * their payout details). @example "staff"
   */
  type: string;
  /** @example "Alice (finance)" */
  name: string;
}

export class AuditEntryResponse {
  /** @example "aud_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  id: string;
  /** @example "2026-11-21T09:30:00.000Z" */
  at: string;
  actor: AuditActorResponse;
  /** @example "tenant_key.revoked" */
  action: string;
  /** @example "tenant_key" */
  target_type: string;
  /** @example "key_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */
  target_id: string;
  @ApiProperty({ type: Object, additionalProperties: true, example: { name: 'ci' } })
  details: Record<string, unknown>;
}

export class AuditLogResponse {
  items: AuditEntryResponse[];
  pagination: PaginationResponse;
}
