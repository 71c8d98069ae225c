import { formatMoney, labelLanguage, uiLocale } from '../common/i18n/format';
import type { ProgramTier } from '../tenants/program';
import type { PhaseChoice } from './phases';

/** What one conversion bonus was paid by, for its `explanation` (docs/money.md §2, "Versions"). */
export interface RuleFacts {
  /** The conversion's amount and currency. */
  amountKopecks: number;
  currency: string;
  tier: ProgramTier;
  /** The phase that paid, when the program has phases (a program of `tiers` alone has none). */
  phase: PhaseChoice | null;
  compressedFrom: string | null;
}

const plural = new Map<string, Intl.PluralRules>();
function ruPlural(count: number, one: string, few: string, many: string): string {
  const rules = plural.get('ru') ?? new Intl.PluralRules('ru');
  plural.set('ru', rules);
  const form = rules.select(count);
  return `${count} ${form === 'one' ? one : form === 'few' ? few : many}`;
}

const TEXT = {
  en: {
    percent: (share: string, amount: string) => `${share} of ${amount}`,
    fixed: (amount: string) => `a fixed ${amount}`,
    month: (n: number, phase: number, months: number) =>
      `month ${n} of phase ${phase} (${months} month${months === 1 ? '' : 's'})`,
    conversion: (n: number, phase: number, count: number) =>
      `conversion ${n} of phase ${phase} (${count} conversion${count === 1 ? '' : 's'})`,
    forEver: (phase: number) => `phase ${phase} (for ever)`,
    compressed: (tier: string) => `passed up from ${tier}`,
  },
  ru: {
    percent: (share: string, amount: string) => `${share} от ${amount}`,
    fixed: (amount: string) => `фиксированно ${amount}`,
    month: (n: number, phase: number, months: number) =>
      `месяц ${n} фазы ${phase} (${ruPlural(months, 'месяц', 'месяца', 'месяцев')})`,
    conversion: (n: number, phase: number, count: number) =>
      `конверсия ${n} фазы ${phase} (${ruPlural(count, 'конверсия', 'конверсии', 'конверсий')})`,
    forEver: (phase: number) => `фаза ${phase} (бессрочно)`,
    compressed: (tier: string) => `перешло от уровня ${tier} (компрессия)`,
  },
};

const percentFormats = new Map<string, Intl.NumberFormat>();

/**
 * The sentence of a bonus's `rule`, in the tenant's locale: `10 % of 1,000.00 ₽, month 2 of phase
 * 1 (12 months)`; `10 % от 1 000,00 ₽, месяц 2 фазы 1 (12 месяцев)`.
 */
export function explainRule(facts: RuleFacts, tenantLocale: string): string {
  const locale = uiLocale(undefined, tenantLocale);
  const text = TEXT[labelLanguage(locale)];
  const format =
    percentFormats.get(locale) ?? new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  percentFormats.set(locale, format);
  const parts = [
    facts.tier.percent_bp !== undefined
      ? text.percent(
          `${format.format(facts.tier.percent_bp / 100)}\u00a0%`,
          formatMoney(facts.amountKopecks, facts.currency, locale),
        )
      : text.fixed(formatMoney(facts.tier.fixed_kopecks, facts.currency, locale)),
  ];
  const phase = facts.phase;
  if (phase) {
    const { months, conversions } = phase.phase;
    if (months !== undefined) parts.push(text.month(phase.position!, phase.number, months));
    else if (conversions !== undefined) {
      parts.push(text.conversion(phase.position!, phase.number, conversions));
    } else parts.push(text.forEver(phase.number));
  }
  if (facts.compressedFrom) parts.push(text.compressed(facts.compressedFrom));
  return parts.join(', ');
}
