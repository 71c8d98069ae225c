import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/http/pagination.dto';

export class WebhookEndpointResponse {
  /** @example "https://acme.example/webhooks/referrals" */ url: string;
  /** @example ["lead.created", "bonus.approved"] */ events: string[];
  /** @example true */ enabled: boolean;
  /** @example "2026-11-21T09:30:00.000Z" */ created_at: string;
  /**
   * Shown only when the endpoint is first created: a Standard Webhooks secret, `whsec_` + base64
   * of 32 random bytes. `X-Service-Signature` is keyed with this whole string (UTF-8),
   * `webhook-signature` with the decoded bytes, so Standard Webhooks libraries take it as it is.
   * @example "whsec_cNeiR1ObrZALeNXf1mKtm8HbryztxNU0fAaxPlG9vmU="
   */
  secret?: string;
}

export class WebhookSecretResponse {
  /**
   * The new signing secret, used from now on; shown once. A Standard Webhooks secret (`whsec_` +
   * base64 of 32 random bytes), whatever the form of the one it replaces, which keeps signing
   * for 24 h. @example "whsec_QSMlNQOBUcz7lvrzejEj++usInYycm2TJdBxmiNn8NY="
   */
  secret: string;
}

export class WebhookTestResponse {
  /** @example "evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ event_id: string;
  /** @example true */ delivered: boolean;
  /** @example 200 */ status_code: number | null;
}

export class WebhookDeliveryResponse {
  /** @example "evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T" */ event_id: string;
  /** @example "bonus.approved" */ event_type: string;
  /** `pending`, `delivered` or `dead`. @example "pending" */ status: string;
  /** @example 2 */ attempts: number;
  /** @example "2026-11-21T09:35:30.000Z" */ next_attempt_at: string | null;
  /** @example 500 */ last_status_code: number | null;
}

export class WebhookDeliveryListResponse {
  items: WebhookDeliveryResponse[];
  pagination: PaginationResponse;
}

export class WebhookAttemptResponse {
  /** @example 1 */ attempt: number;
  /** When the request was sent (while in flight or interrupted: when the attempt was claimed). @example "2026-11-21T09:30:00.120Z" */
  at: string;
  /**
   * `completed`: its outcome is recorded. `in_flight`: recorded before its request was sent, no
   * outcome yet. `interrupted`: the worker stopped mid-attempt without recording an outcome (the
   * request may or may not have reached the receiver); the delivery carries on with the next
   * attempt. @example "completed"
   */
  @ApiProperty({ enum: ['completed', 'in_flight', 'interrupted'] })
  state: 'completed' | 'in_flight' | 'interrupted';
  /** @example 500 */ status_code: number | null;
  /** Null until the attempt is completed. @example 87 */ duration_ms: number | null;
  /** Error class: http_status, redirect, timeout, connection_refused, connection_reset, tls, dns, ssrf_blocked, endpoint_disabled, internal_error, network. @example "http_status" */
  error: string | null;
  /** The first 4 KiB of the answer. @example "{\"error\":\"db down\"}" */
  response_body: string | null;
  /** @example false */ replay: boolean;
}

export class WebhookEventDetailResponse {
  /** The envelope exactly as delivered. */
  @ApiProperty({
    type: Object,
    additionalProperties: true,
    example: {
      event_type: 'bonus.approved',
      event_id: 'evt_01JD0Z6V2Y8K3M4N5P6Q7R8S9T',
      occurred_at: '2026-11-21T09:30:00.000Z',
      payload: { bonus_id: 'bns_…', user_id: 'usr_…', amount_kopecks: 1500, approved_at: '…' },
    },
  })
  event: Record<string, unknown>;
  /** @example "delivered" */ status: string;
  attempts: WebhookAttemptResponse[];
}
