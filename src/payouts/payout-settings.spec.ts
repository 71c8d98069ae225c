import {
  nextScheduledRun,
  SCHEDULE_PATTERN,
  scheduleDue,
  withPayoutDefaults,
} from '../tenants/payout-settings';
import { decimalAmount } from './payouts-csv.service';

describe('payout settings', () => {
  it('fills defaults and keeps what was set before', () => {
    expect(withPayoutDefaults(undefined)).toEqual({
      minimum_kopecks: 100000,
      schedule: 'manual',
      hold_days: 0,
      require_details: false,
    });
    const current = withPayoutDefaults({ minimum_kopecks: 5000, hold_days: 7 });
    expect(withPayoutDefaults({ schedule: 'weekly:1' }, current)).toEqual({
      minimum_kopecks: 5000,
      schedule: 'weekly:1',
      hold_days: 7,
      require_details: false,
    });
  });

  it.each([
    ['manual', true],
    ['weekly:1', true],
    ['weekly:7', true],
    ['weekly:0', false],
    ['weekly:8', false],
    ['monthly:1', true],
    ['monthly:28', true],
    ['monthly:29', false],
    ['monthly:01', false],
    ['daily', false],
  ])('schedule %s valid: %s', (schedule, valid) => {
    expect(SCHEDULE_PATTERN.test(schedule)).toBe(valid);
  });

  it('runs on the UTC day the schedule names, never for manual', () => {
    // 2026-11-30 is a Monday; at 00:00 UTC it is still Sunday west of Greenwich.
    const monday = new Date('2026-11-30T00:00:00.000Z');
    expect(scheduleDue('weekly:1', monday)).toBe(true);
    expect(scheduleDue('weekly:7', monday)).toBe(false);
    expect(scheduleDue('weekly:7', new Date('2026-11-29T23:59:59.999Z'))).toBe(true);
    expect(scheduleDue('monthly:30', monday)).toBe(true);
    expect(scheduleDue('monthly:1', monday)).toBe(false);
    expect(scheduleDue('monthly:1', new Date('2026-12-01T00:00:00.000Z'))).toBe(true);
    expect(scheduleDue('manual', monday)).toBe(false);
  });

  it('names the next run day after today (UTC), none for manual', () => {
    const at = (iso: string) => new Date(iso).toISOString().slice(0, 10);
    const next = (schedule: string, now: string) => {
      const d = nextScheduledRun(schedule, new Date(now));
      return d && d.toISOString();
    };
    // Monday 2026-11-30: today's 00:00 run is behind, so weekly:1 is next Monday.
    expect(next('weekly:1', '2026-11-30T00:00:00.000Z')).toBe('2026-12-07T00:00:00.000Z');
    expect(next('weekly:2', '2026-11-30T23:59:59.999Z')).toBe('2026-12-01T00:00:00.000Z');
    expect(next('weekly:7', '2026-11-29T12:00:00.000Z')).toBe('2026-12-06T00:00:00.000Z');
    expect(next('monthly:1', '2026-11-30T10:00:00.000Z')).toBe('2026-12-01T00:00:00.000Z');
    expect(next('monthly:28', '2026-12-28T10:00:00.000Z')).toBe('2027-01-28T00:00:00.000Z');
    expect(next('monthly:28', '2027-01-29T10:00:00.000Z')).toBe('2027-02-28T00:00:00.000Z');
    expect(next('manual', '2026-11-30T10:00:00.000Z')).toBeNull();
    // Always a day the worker runs, within a month, strictly after today.
    for (let i = 0; i < 400; i++) {
      const now = new Date(Date.UTC(2026, 0, 1) + i * 86_400_000 + 3_600_000);
      for (const schedule of ['weekly:3', 'monthly:15', 'monthly:28']) {
        const d = nextScheduledRun(schedule, now)!;
        expect(scheduleDue(schedule, d)).toBe(true);
        expect(at(d.toISOString()) > at(now.toISOString())).toBe(true);
        expect(d.getTime() - now.getTime()).toBeLessThanOrEqual(31 * 86_400_000);
      }
    }
  });

  it('prints kopecks as an exact decimal with a dot', () => {
    expect(decimalAmount(0)).toBe('0.00');
    expect(decimalAmount(5)).toBe('0.05');
    expect(decimalAmount(150000)).toBe('1500.00');
    expect(decimalAmount(123456789)).toBe('1234567.89');
    expect(decimalAmount(-5)).toBe('-0.05');
  });
});
