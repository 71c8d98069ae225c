import { PaginationResponse } from '../../common/http/pagination.dto';

/** A lead as the console lists it, with its partner (the referrer). */
export class LeadRowResponse {
  /** @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ lead_id: string;
  /** `new`, `processed`, `converted` or `rejected`. @example "new" */ status: string;
  /** @example "lead_form" */ source: string;
  /** @example "Ivan Ivanov" */ contact_name: string;
  /** @example "ivan@example.org" */ contact_email: string | null;
  /** @example "+79990001122" */ contact_phone: string | null;
  /** @example null */ offer_id: string | null;
  /** @example null */ status_reason: string | null;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** The referrer (surrogate id). @example "mbr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ user_id: string;
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ service_user_id: string;
  /** The referrer's name, else email, else external id. @example "Anna Petrova" */
  partner_name: string;
}

export class LeadListResponse {
  items: LeadRowResponse[];
  pagination: PaginationResponse;
}
