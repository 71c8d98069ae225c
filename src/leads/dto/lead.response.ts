export class LeadCreatedResponse {
  /** @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ lead_id: string;
  /** @example "new" */ status: string;
}

export class LeadResponse {
  /** @example "lead_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ lead_id: string;
  /** @example "processed" */ status: string;
  /** `federation`, `lead_form` or `referral_link`. @example "federation" */ source: string;
  /** @example "usr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ referrer_user_id: string;
  /** @example null */ offer_id: string | null;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /** @example "2026-11-21T10:00:00.000Z" */ updated_at: string;
}
