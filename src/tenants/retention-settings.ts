import { IsInt, Max, Min } from 'class-validator';
import { Optional } from '../common/validation/optional';

/**
 * How long a tenant keeps what it needs only for a while (docs/privacy.md, "Retention"): client
 * IPs and user agents of leads and conversions (cleared by the housekeeping worker after
 * `client_data_days`), and events (`events_days`, today's rule: EVENT_RETENTION_DAYS).
 */
export interface RetentionSettings {
  client_data_days: number;
  events_days: number;
}

export const DEFAULT_RETENTION: RetentionSettings = { client_data_days: 90, events_days: 30 };

/** Any of them; the others keep their current value (or default). */
export class RetentionSettingsDto {
  /** Days client IPs and user agents are kept (default 90). @example 90 */
  @Optional() @IsInt() @Min(1) @Max(3650) client_data_days?: number;
  /** Days events are kept for delivery and replay (default 30). @example 30 */
  @Optional() @IsInt() @Min(1) @Max(3650) events_days?: number;
}

export class RetentionSettingsResponse {
  /** @example 90 */ client_data_days: number;
  /** @example 30 */ events_days: number;
}

export function withRetentionDefaults(
  given?: Partial<RetentionSettings> | null,
  current: RetentionSettings = DEFAULT_RETENTION,
): RetentionSettings {
  return {
    client_data_days: given?.client_data_days ?? current.client_data_days,
    events_days: given?.events_days ?? current.events_days,
  };
}
