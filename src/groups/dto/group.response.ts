import { PaginationResponse } from '../../common/http/pagination.dto';
import { ProgramResponse } from '../../tenants/dto/tenant.response';
import type { SignupFieldType } from '../group.entity';

export class SignupFieldResponse {
  /** @example "audience" */ name: string;
  /** @example "Where do you publish?" */ label: string;
  /** @example "select" */ type: SignupFieldType;
  /** @example true */ required: boolean;
  /** Only on `select` fields. @example ["Blog", "YouTube"] */ options?: string[];
}

export class SignupResponse {
  /** @example false */ enabled: boolean;
  /** @example false */ auto_approve: boolean;
  fields: SignupFieldResponse[];
}

export class PromoteToResponse {
  /** @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ group_id: string;
  /** @example 10 */ min_conversions?: number;
  /** @example 10000000 */ min_revenue_kopecks?: number;
  /** @example 30 */ window_days: number;
}

export class GroupResponse {
  /** @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ group_id: string;
  /** @example "bloggers" */ slug: string;
  /** @example "Bloggers" */ name: string;
  /** The group's own program, or null: the tenant's default pays its partners. */
  program: ProgramResponse | null;
  signup: SignupResponse;
  /** The promotion out of this group, or null. */
  promote_to: PromoteToResponse | null;
  /** @example 42 */ members_count: number;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class GroupListResponse {
  items: GroupResponse[];
  pagination: PaginationResponse;
}

export class MemberGroupResponse {
  /** The member's tenant-scoped id. @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "grp_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ group_id: string;
}
