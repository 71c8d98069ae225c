import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * `in_flight`: written by the statement that claims the attempt, before its request is sent;
 * `completed`: its answer (or failure) is recorded. A row left `in_flight` by a worker that died
 * is shown as `interrupted` once the delivery's lock has lapsed (see webhooks.service.ts).
 */
export const ATTEMPT_STATES = ['in_flight', 'completed'] as const;
export type AttemptState = (typeof ATTEMPT_STATES)[number];

/** One HTTP attempt of a delivery, for the operator's view (docs/webhooks.md §9). */
@Entity({ name: 'webhook_attempts' })
export class WebhookAttemptEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text', name: 'event_id' }) eventId: string;
  @PrimaryColumn({ type: 'integer' }) attempt: number;
  @Column({ type: 'timestamptz' }) at: Date;
  @Column({ type: 'integer', name: 'status_code', nullable: true }) statusCode: number | null;
  @Column({ type: 'integer', name: 'duration_ms' }) durationMs: number;
  /** The error class: `http_status`, `timeout`, `connection_refused`, `tls`, `redirect`, `ssrf_blocked`, … */
  @Column({ type: 'text', nullable: true }) error: string | null;
  /** The first 4 KiB of the receiver's answer. */
  @Column({ type: 'text', name: 'response_body', nullable: true }) responseBody: string | null;
  @Column({ type: 'boolean', default: false }) replay: boolean;
  @Column({ type: 'text', default: 'completed' }) state: AttemptState;
}
