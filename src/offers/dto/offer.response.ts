import { ProgramResponse } from '../../tenants/dto/tenant.response';

export class OfferResponse {
  /** @example "ofr_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ offer_id: string;
  /** @example "Premium plan" */ name: string;
  /** @example "https://acme.example/premium" */ url: string | null;
  /** The offer's program, or null when the tenant's default applies. */
  program: ProgramResponse | null;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class OfferListResponse {
  items: OfferResponse[];
}
