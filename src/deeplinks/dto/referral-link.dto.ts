import { IsIn, IsString, Length, Matches } from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { TARGET_TYPES, type TargetType } from '../deeplink.entity';

export class CreateReferralLinkDto {
  /** @example "website" */
  @IsIn(TARGET_TYPES) target_type: TargetType;

  /** For `website`, an https URL on the tenant's site; otherwise an id. @example "https://acme.example/catalog?item=42" */
  @IsString() @Length(1, 2048) target_id: string;

  /** Shown on the landing page. @example "My favourite shop — try the spring collection!" */
  @Optional() @IsString() @Length(1, 500) recommendation_text?: string;

  /** @example "SPRING-10" */
  @Optional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be 1–64 of A-Z a-z 0-9 _ -' })
  promo_code?: string;
}

export class ReferralLinkResponse {
  /** @example "http://localhost:3000/s/Ab3dE6gH" */ short_url: string;
  /** @example "eyJ0Ijoib3JnXzAx….Qm9n…" */ signed_ref: string;
  /** @example "dl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ deeplink_id: string;
  /** @example "Ab3dE6gH" */ code: string;
  /** True when the same parameters returned an existing link. @example false */ reused: boolean;
}

/** One of the signed-in partner's links, as the link widget lists them. */
export class ReferralLinkItem {
  /** @example "dl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ deeplink_id: string;
  /** @example "Ab3dE6gH" */ code: string;
  /** @example "http://localhost:3000/s/Ab3dE6gH" */ short_url: string;
  /** @example "website" */ target_type: TargetType;
  /** @example "https://acme.example/catalog?item=42" */ target_id: string;
  /** @example "SPRING-10" */ promo_code: string | null;
  /** @example "My favourite shop — try the spring collection!" */
  recommendation_text: string | null;
  /** Clicks counted so far (a few seconds behind the redirects). @example 17 */
  clicks_count: number;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
}

export class ReferralLinkListResponse {
  /** Newest first, at most 50. */
  items: ReferralLinkItem[];
}
