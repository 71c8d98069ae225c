import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../../common/errors/domain-error';
import { DEFAULT_CURRENCY } from '../../common/i18n/format';
import type { TenantEntity } from '../../tenants/tenant.entity';
import { isDay, MAX_PERIOD_DAYS, type StatsQueryDto } from './stats.dto';
import type { StatsDayResponse, StatsResponse } from './stats.response';
import { StatsRepository } from './stats.repository';

const DAY_MS = 86_400_000;
export const DEFAULT_PERIOD_DAYS = 30;
export const TOP_PARTNERS = 10;

export interface Period {
  from: string;
  to: string;
}

/** Today's UTC day, `YYYY-MM-DD`. */
export const today = (now = Date.now()) => new Date(now).toISOString().slice(0, 10);

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export function periodDays(p: Period): number {
  return Math.round((Date.parse(p.to) - Date.parse(p.from)) / DAY_MS) + 1;
}

/**
 * The period of `query`: both days given, or the default (the last 30 days to today, or to
 * `to`; 30 days from `from`). Refused (400) when a day is not one, `from` is after `to`, or the
 * period is longer than MAX_PERIOD_DAYS.
 */
export function resolvePeriod(query: StatsQueryDto, now = Date.now()): Period {
  for (const field of ['from', 'to'] as const) {
    const value = query[field];
    if (value !== undefined && !isDay(value)) {
      throw new ValidationFailedError([{ field, message: 'must be a day YYYY-MM-DD' }]);
    }
  }
  const to = query.to ?? (query.from ? addDays(query.from, DEFAULT_PERIOD_DAYS - 1) : today(now));
  const from = query.from ?? addDays(to, -(DEFAULT_PERIOD_DAYS - 1));
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
  constructor(private readonly repo: StatsRepository) {}

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
    for (let day = from; day <= to; day = addDays(day, 1)) {
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
