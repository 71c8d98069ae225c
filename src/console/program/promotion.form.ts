import { DomainError, type FieldError } from '../../common/errors/domain-error';
import type { PromoteTo } from '../../groups/group.entity';
import { moneyText, parseMoney } from './program.form';
import type { FormError, FormErrorTexts } from './program-errors';

/** A group's promotion as the form holds it (docs/console.md): `target` empty is none. */
export interface PromotionValues {
  target: string;
  min_conversions: string;
  min_revenue: string;
  window_days: string;
}

export const NO_PROMOTION: PromotionValues = {
  target: '',
  min_conversions: '',
  min_revenue: '',
  window_days: '30',
};

export function promotionValues(promoteTo: PromoteTo | null): PromotionValues {
  if (!promoteTo) return NO_PROMOTION;
  return {
    target: promoteTo.group_id,
    min_conversions: promoteTo.min_conversions?.toString() ?? '',
    min_revenue:
      promoteTo.min_revenue_kopecks !== undefined ? moneyText(promoteTo.min_revenue_kopecks) : '',
    window_days: String(promoteTo.window_days),
  };
}

export function promotionFromBody(body: Record<string, unknown>): PromotionValues {
  const text = (name: string) => (typeof body[name] === 'string' ? String(body[name]) : '');
  return {
    target: text('promote_group'),
    min_conversions: text('promote_conversions'),
    min_revenue: text('promote_revenue'),
    window_days: text('promote_days'),
  };
}

/**
 * The promotion the form describes (null: none), or what is wrong with it: the bounds of
 * `PATCH …/groups/:id`'s body (PromoteToDto), said on the form's fields.
 */
export function promotionFromValues(
  v: PromotionValues,
  e: FormErrorTexts,
): { promote_to: PromoteTo | null } | { errors: FormError[] } {
  if (!v.target.trim()) return { promote_to: null };
  const errors: FormError[] = [];
  const err = (on: string, message: string) => errors.push({ on, field: e.promotion, message });
  const conversionsText = v.min_conversions.trim();
  const revenueText = v.min_revenue.trim();
  const conversions = /^\d{1,10}$/.test(conversionsText) ? Number(conversionsText) : undefined;
  const revenue = revenueText ? parseMoney(revenueText) : undefined;
  const days = /^\d{1,4}$/.test(v.window_days.trim()) ? Number(v.window_days.trim()) : undefined;
  if (conversionsText && (conversions === undefined || conversions < 1 || conversions > 1e9)) {
    err('promote_conversions', e.promoteConversions);
  }
  if (revenueText && !revenue) err('promote_revenue', e.promoteRevenue);
  if (!conversionsText && !revenueText) err('promote_conversions', e.promoteMin);
  if (days === undefined || days < 1 || days > 3660) err('promote_days', e.promoteDays);
  if (errors.length) return { errors };
  return {
    promote_to: {
      group_id: v.target.trim(),
      ...(conversions !== undefined ? { min_conversions: conversions } : {}),
      ...(revenue !== undefined ? { min_revenue_kopecks: revenue } : {}),
      window_days: days!,
    },
  };
}

/**
 * A refusal of GroupsService.update on the form's fields (a loop: 400 on `promote_to.group_id`;
 * a target that is gone: 404), or undefined when `error` is not one of them.
 */
export function promotionRefusal(error: unknown, e: FormErrorTexts): FormError[] | undefined {
  if (!(error instanceof DomainError) || Number(error.status) >= 500) return undefined;
  if (error.code === 'group_not_found') {
    return [{ on: 'promote_group', field: e.promoteTarget, message: e.noGroup }];
  }
  return (error.errors ?? [{ field: 'promote_to', message: error.detail }]).map(
    (f: FieldError) => ({
      on: f.field === 'promote_to.group_id' ? 'promote_group' : 'promote_conversions',
      field: e.promotion,
      message: /loop/.test(f.message)
        ? e.promoteLoop
        : /min_conversions/.test(f.message)
          ? e.promoteMin
          : f.message,
    }),
  );
}
