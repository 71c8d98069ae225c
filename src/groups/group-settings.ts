import type { FieldError } from '../common/errors/domain-error';
import type { GroupSignup, PromoteTo, SignupField } from './group.entity';

/** A group's signup settings as a caller may send them: every field optional. */
export interface SignupInput {
  enabled?: boolean;
  auto_approve?: boolean;
  fields?: SignupField[];
}

/** Complete signup settings: omitted fields take the defaults (closed, no questions). */
export function withSignupDefaults(input?: SignupInput): GroupSignup {
  return {
    enabled: input?.enabled ?? false,
    auto_approve: input?.auto_approve ?? false,
    fields: (input?.fields ?? []).map((f) => ({
      name: f.name,
      label: f.label,
      type: f.type,
      required: f.required,
      ...(f.options !== undefined ? { options: f.options } : {}),
    })),
  };
}

/**
 * What the field types alone cannot say: names are unique in the form, a `select` has options and
 * no other type has any.
 */
export function signupErrors(signup: SignupInput, field = 'signup'): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (signup.fields ?? []).forEach((f, index) => {
    const at = `${field}.fields.${index}`;
    if (seen.has(f.name)) errors.push({ field: `${at}.name`, message: 'must be unique' });
    seen.add(f.name);
    if (f.type === 'select' && f.options === undefined) {
      errors.push({ field: `${at}.options`, message: 'a select field must have options' });
    }
    if (f.type !== 'select' && f.options !== undefined) {
      errors.push({ field: `${at}.options`, message: 'only a select field has options' });
    }
  });
  return errors;
}

/** A promotion needs something to reach. */
export function promoteToErrors(promoteTo: PromoteTo, field = 'promote_to'): FieldError[] {
  if (promoteTo.min_conversions === undefined && promoteTo.min_revenue_kopecks === undefined) {
    return [{ field, message: 'must have min_conversions, min_revenue_kopecks or both' }];
  }
  return [];
}

/** The promotion as stored: only the fields given. */
export function promoteToOf(input: PromoteTo): PromoteTo {
  return {
    group_id: input.group_id,
    ...(input.min_conversions !== undefined ? { min_conversions: input.min_conversions } : {}),
    ...(input.min_revenue_kopecks !== undefined
      ? { min_revenue_kopecks: input.min_revenue_kopecks }
      : {}),
    window_days: input.window_days,
  };
}

/**
 * Whether following promotions from `start`, with `start` promoting to `target` and every other
 * group as `promotions` says, comes back to a group already passed (a loop).
 */
export function promotionLoops(
  promotions: ReadonlyMap<string, string>,
  start: string,
  target: string,
): boolean {
  const seen = new Set([start]);
  for (let at: string | undefined = target; at !== undefined; at = promotions.get(at)) {
    if (seen.has(at)) return true;
    seen.add(at);
  }
  return false;
}
