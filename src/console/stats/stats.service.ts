import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../../common/errors/domain-error';
import { DEFAULT_CURRENCY } from '../../common/i18n/format';
import type { TenantEntity } from '../../tenants/tenant.entity';
import {
  FIRST_DAY,
  isPeriodDay,
  LAST_DAY,
  MAX_PERIOD_DAYS,
  periodDayMessage,
  type StatsQueryDto,
} from './stats.dto';
import type { StatsDayResponse, StatsResponse } from './stats.response';
import { StatsReader } from '../read-model/stats.reader';

const DAY_MS = 86_400_000;
export const DEFAULT_PERIOD_DAYS = 30;
export const TOP_PARTNERS = 10;

export interface Period {
  from: string;
  to: string;
}

/** Today's UTC day, `YYYY-MM-DD`. */
export const today = (now = Date.now()) => new Date(now).toISOString().slice(0, 10);

/** The day number of `day` (days since 1970-01-01, UTC). */
export function dayNumber(day: string): number {
  return Math.round(Date.parse(`${day}T00:00:00.000Z`) / DAY_MS);
}

/** The day `YYYY-MM-DD` of a day number (within FIRST_DAY..LAST_DAY it is always four-digit). */
export function dayOf(n: number): string {
  return new Date(n * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(day: string, n: number): string {
  return dayOf(dayNumber(day) + n);
}

export function periodDays(p: Period): number {
  return dayNumber(p.to) - dayNumber(p.from) + 1;
}

const clamp = (day: string) => (day < FIRST_DAY ? FIRST_DAY : day > LAST_DAY ? LAST_DAY : day);

/**
 * The period of `query`: both days given, or the default (the last 30 days to today, or to
 * `to`; 30 days from `from`), a default day kept within FIRST_DAY..LAST_DAY. Refused (400) when
 * a day is not one or lies outside FIRST_DAY..LAST_DAY, `from` is after `to`, or the period is
 * longer than MAX_PERIOD_DAYS: the DTO says the same, this also guards the console's page.
 */
export function resolvePeriod(query: StatsQueryDto, now = Date.now()): Period {
  for (const field of ['from', 'to'] as const) {
    const value = query[field];
    if (value !== undefined && !isPeriodDay(value)) {
      throw new ValidationFailedError([{ field, message: periodDayMessage(value) }]);
    }
  }
  const to =
    query.to ?? clamp(query.from ? addDays(query.from, DEFAULT_PERIOD_DAYS - 1) : today(now));
  const from = query.from ?? clamp(addDays(to, -(DEFAULT_PERIOD_DAYS - 1)));
  if (from > to) {
    throw new ValidationFailedError([{ field: 'from', message: 'must not be after to' }]);
  }
  if (periodDays({ from, to }) > MAX_PERIOD_DAYS) {
    throw new ValidationFailedError([
      { field: 'from', message: `the period may span at most ${MAX_PERIOD_DAYS} days` },
    ]);
  }
  return { from, to };
}

/** The overview's numbers (docs/console.md), read from the rollups only. */
@Injectable()
export class StatsService {
  constructor(private readonly repo: StatsReader) {}

  async stats(tenant: TenantEntity, period: Period): Promise<StatsResponse> {
    const currency = tenant.currency || DEFAULT_CURRENCY;
    const { from, to } = period;
    const [days, top] = await Promise.all([
      this.repo.days(tenant.id, from, to, currency),
      this.repo.topPartners(tenant.id, from, to, currency, TOP_PARTNERS),
    ]);
    const byDay = new Map(days.map((d) => [d.day, d]));
    const series: StatsDayResponse[] = [];
    const totals = {
      clicks: 0,
      new_partners: 0,
      leads: 0,
      conversions: 0,
      revenue_kopecks: 0,
      commission_pending_kopecks: 0,
      commission_approved_kopecks: 0,
      commission_paid_kopecks: 0,
    };
    let converted = 0;
    // Over day numbers, not strings: at most MAX_PERIOD_DAYS turns whatever the days are.
    for (let n = dayNumber(from), last = dayNumber(to); n <= last; n++) {
      const day = dayOf(n);
      const d = byDay.get(day);
      series.push({
        date: day,
        clicks: d?.clicks ?? 0,
        new_partners: d?.new_partners ?? 0,
        leads: d?.leads ?? 0,
        conversions: d?.conversions ?? 0,
        revenue_kopecks: d?.revenue_kopecks ?? 0,
        commission_kopecks: d ? d.pending + d.approved + d.paid + d.other : 0,
      });
      if (!d) continue;
      totals.clicks += d.clicks;
      totals.new_partners += d.new_partners;
      totals.leads += d.leads;
      totals.conversions += d.conversions;
      totals.revenue_kopecks += d.revenue_kopecks;
      totals.commission_pending_kopecks += d.pending;
      totals.commission_approved_kopecks += d.approved;
      totals.commission_paid_kopecks += d.paid;
      converted += d.converted_leads;
    }
    return {
      from,
      to,
      currency,
      totals,
      series,
      funnel: { clicks: totals.clicks, leads: totals.leads, converted_leads: converted },
      top_partners: top.map((t) => ({
        user_id: t.member_id,
        display_name: t.display_name,
        commission_kopecks: t.commission_kopecks,
      })),
    };
  }
}
