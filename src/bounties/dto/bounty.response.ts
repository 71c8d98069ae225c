import { PaginationResponse } from '../../common/http/pagination.dto';
import type { BountyMetric } from '../bounty.entity';

export class BountyResponse {
  /** @example "bty_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ bounty_id: string;
  /** @example "December sprint" */ name: string;
  /** The group whose partners it applies to, or null: every partner. @example null */
  group_id: string | null;
  /** `conversions` or `revenue_kopecks`. @example "conversions" */ metric: BountyMetric;
  /** @example 10 */ threshold: number;
  /** @example 500000 */ amount_kopecks: number;
  /** @example "RUB" */ currency: string;
  /** @example "2026-12-01T00:00:00.000Z" */ starts_at: string;
  /** null: open-ended. @example "2027-01-01T00:00:00.000Z" */ ends_at: string | null;
  /** How many partners reached it so far. @example 3 */ reached_count: number;
  /** @example "2026-11-30T09:30:00.000Z" */ created_at: string;
}

export class BountyListResponse {
  items: BountyResponse[];
  pagination: PaginationResponse;
}

export class BountyProgressItem {
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** Their conversions, or kopecks of revenue, counted now (reversals taken off). @example 7 */
  value: number;
  /** The bounty's threshold. @example 10 */ threshold: number;
  /** Whether they reached it (and got its bonus); a later reversal does not undo it. @example false */
  reached: boolean;
  /** When they reached it, or null. @example null */ reached_at: string | null;
  /** The bounty bonus (`bns_…`), or null (not reached, or the bounty pays 0). @example null */
  bonus_id: string | null;
}

export class BountyProgressResponse {
  /** @example "bty_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ bounty_id: string;
  items: BountyProgressItem[];
  pagination: PaginationResponse;
}

/** One partner's progress towards a bounty, as the repository reads it (the pages show names). */
export interface ProgressRow {
  member_id: string;
  user_id: string;
  full_name: string | null;
  value: number;
  bonus_id: string | null;
  reached_at: string | null;
}
