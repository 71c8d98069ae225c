import { IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { Optional } from '../common/validation/optional';

/** A tenant's payout settings (docs/payouts.md §5), stored on the tenant as given with defaults. */
export interface PayoutSettings {
  minimum_kopecks: number;
  /** `manual`, `weekly:<1-7>` (ISO weekday, 1 = Monday) or `monthly:<1-28>`. */
  schedule: string;
  hold_days: number;
  /** A run skips a member without payout details (their balance stays available). */
  require_details: boolean;
}

export const DEFAULT_PAYOUT_SETTINGS: PayoutSettings = {
  minimum_kopecks: 100000,
  schedule: 'manual',
  hold_days: 0,
  require_details: false,
};

export const SCHEDULE_PATTERN = /^(manual|weekly:[1-7]|monthly:([1-9]|1[0-9]|2[0-8]))$/;

/** Any of them; the others keep their current value (or default). */
export class PayoutSettingsDto {
  /** Smallest payable balance a run pays out (default 100000). @example 100000 */
  @Optional() @IsInt() @Min(1) @Max(1e15) minimum_kopecks?: number;

  /**
   * `manual` (default: runs only when asked), `weekly:<1-7>` (ISO weekday, 1 = Monday) or
   * `monthly:<1-28>`: the worker runs payouts at 00:00 UTC of that day. @example "weekly:1"
   */
  @Optional()
  @IsString()
  @Matches(SCHEDULE_PATTERN, { message: 'must be manual, weekly:<1-7> or monthly:<1-28>' })
  schedule?: string;

  /** An approved bonus becomes payable this many days after approval (default 0). @example 0 */
  @Optional() @IsInt() @Min(0) @Max(3650) hold_days?: number;

  /**
   * A run skips a member who has not entered payout details (docs/partners.md, "Payout
   * details"): no payout for them, their balance stays available (default false). @example false
   */
  @Optional() @IsBoolean() require_details?: boolean;
}

export class PayoutSettingsResponse {
  /** @example 100000 */ minimum_kopecks: number;
  /** @example "manual" */ schedule: string;
  /** @example 0 */ hold_days: number;
  /** @example false */ require_details: boolean;
}

export function withPayoutDefaults(
  given?: Partial<PayoutSettings> | null,
  current: PayoutSettings = DEFAULT_PAYOUT_SETTINGS,
): PayoutSettings {
  return {
    minimum_kopecks: given?.minimum_kopecks ?? current.minimum_kopecks,
    schedule: given?.schedule ?? current.schedule,
    hold_days: given?.hold_days ?? current.hold_days,
    require_details: given?.require_details ?? current.require_details,
  };
}

/** Whether `schedule` runs on the UTC day of `at`. */
export function scheduleDue(schedule: string, at: Date): boolean {
  const [kind, day] = schedule.split(':');
  if (kind === 'weekly') return (at.getUTCDay() || 7) === Number(day);
  if (kind === 'monthly') return at.getUTCDate() === Number(day);
  return false;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The UTC day of the schedule's next run after `now` (its 00:00 UTC), or null for `manual`. The
 * run of a day happens at that day's 00:00 UTC, so today is never next: once today has begun, its
 * run is behind us.
 */
export function nextScheduledRun(schedule: string, now: Date): Date | null {
  if (!schedule.startsWith('weekly:') && !schedule.startsWith('monthly:')) return null;
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  // Every weekday comes within 7 days, every day 1–28 within 31.
  for (let d = 1; d <= 31; d++) {
    const day = new Date(today + d * DAY_MS);
    if (scheduleDue(schedule, day)) return day;
  }
  return null;
}
