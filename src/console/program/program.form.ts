import { cascade } from '../../conversions/cascade';
import type { FieldError } from '../../common/errors/domain-error';
import {
  MAX_UPLINE_TIERS,
  type Program,
  programPhases,
  type ProgramTier,
  tierErrors,
  tierName,
} from '../../tenants/program';

/** The preview's amount when the page is given none (docs/console.md: `?amount_kopecks=`, 1,000,000). */
export const DEFAULT_PREVIEW_KOPECKS = 1_000_000;
const MAX_KOPECKS = 10_000_000_000_000;

/** What the program form holds, as text (what the person typed, shown back on a refusal). */
export interface ProgramFormValues {
  lead_bonus: string;
  grace_period_hours: string;
  /** One row per tier shown: percent (`10`, `2,5`) or fixed amount (`100.00`), one of them. */
  tiers: { percent: string; fixed: string }[];
  amount: string;
}

/** `1234.5` / `1234,50` → 123450; undefined when it is not an amount with at most 2 decimals. */
export function parseMoney(text: string): number | undefined {
  const m = /^(\d{1,13})(?:[.,](\d{1,2}))?$/.exec(text.trim().replace(/[\s\u00a0]/g, ''));
  if (!m) return undefined;
  const kopecks = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return kopecks <= MAX_KOPECKS ? kopecks : undefined;
}

/** `10` / `2,5` percent → basis points 1000 / 250; undefined beyond 100 or 2 decimals. */
export function parsePercent(text: string): number | undefined {
  const m = /^(\d{1,3})(?:[.,](\d{1,2}))?$/.exec(text.trim());
  if (!m) return undefined;
  const bp = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return bp <= 10000 ? bp : undefined;
}

/** 123450 → `1234.50`; the form writes amounts with a dot, whatever the locale. */
export const moneyText = (kopecks: number) =>
  `${Math.floor(kopecks / 100)}.${String(kopecks % 100).padStart(2, '0')}`;
/** 250 → `2.5`. */
export const percentText = (bp: number) => String(bp / 100);

/** The form of a stored program, with `spare` empty tier rows to add more (up to 21). */
export function formValues(program: Program, amountKopecks: number, spare = 2): ProgramFormValues {
  // A phased program shows its first phase (the page says so: docs/console.md).
  const tiers = programPhases(program)[0].tiers;
  const rows = tiers.map((t) =>
    t.percent_bp !== undefined
      ? { percent: percentText(t.percent_bp), fixed: '' }
      : { percent: '', fixed: moneyText(t.fixed_kopecks) },
  );
  while (rows.length < Math.min(tiers.length + spare, MAX_UPLINE_TIERS + 1)) {
    rows.push({ percent: '', fixed: '' });
  }
  return {
    lead_bonus: moneyText(program.lead_bonus_kopecks),
    grace_period_hours: String(program.grace_period_hours),
    tiers: rows,
    amount: moneyText(amountKopecks),
  };
}

/** What is wrong with a program form, in the page's language. */
const FORM_ERRORS_EN = {
  leadBonus: 'Bonus per lead',
  grace: 'Hours before approval',
  amount: 'Example amount',
  tiers: 'Tiers',
  tier: (n: number, name: string) => `Tier ${n} (${name})`,
  money: 'must be an amount such as 100.00',
  hours: 'must be whole hours, 0 to 8760',
  positive: 'must be an amount above 0',
  afterEmpty: 'comes after an empty tier; fill the tiers in order',
  both: 'give a percent or a fixed amount, not both',
  percent: 'percent must be 0 to 100, such as 2.5',
  noTiers: 'at least the referrer tier is needed',
  sum: 'the percents of all tiers add up to more than 100 %',
};
export type FormErrorTexts = typeof FORM_ERRORS_EN;

export const FORM_ERRORS: Record<'en' | 'ru', FormErrorTexts> = {
  en: FORM_ERRORS_EN,
  ru: {
    leadBonus: 'Бонус за лид',
    grace: 'Часов до одобрения',
    amount: 'Пример суммы',
    tiers: 'Уровни',
    tier: (n, name) => `Уровень ${n} (${name})`,
    money: 'нужна сумма вида 100.00',
    hours: 'нужно целое число часов от 0 до 8760',
    positive: 'нужна сумма больше 0',
    afterEmpty: 'идёт после пустого уровня; заполняйте уровни по порядку',
    both: 'укажите процент или фиксированную сумму, не то и другое',
    percent: 'процент от 0 до 100, например 2,5',
    noTiers: 'нужен хотя бы уровень referrer',
    sum: 'проценты всех уровней вместе больше 100 %',
  },
};

/** The form's fields from a posted body (`percent_<i>`, `fixed_<i>`, i < 21). */
export function valuesFromBody(body: Record<string, unknown>): ProgramFormValues {
  const text = (name: string) => (typeof body[name] === 'string' ? String(body[name]) : '');
  const tiers: ProgramFormValues['tiers'] = [];
  for (let i = 0; i <= MAX_UPLINE_TIERS; i++) {
    if (!(`percent_${i}` in body) && !(`fixed_${i}` in body)) break;
    tiers.push({ percent: text(`percent_${i}`), fixed: text(`fixed_${i}`) });
  }
  return {
    lead_bonus: text('lead_bonus'),
    grace_period_hours: text('grace_period_hours'),
    tiers,
    amount: text('amount'),
  };
}

/**
 * The program the form describes, or what is wrong with it (each error names the field as the
 * form labels it: `tier 2 (upline_1)`). Tiers end at the first empty row; a row after it must be
 * empty too. The rules of src/tenants/program.ts (percent sum ≤ 100 %, order) apply unchanged.
 */
export function programFromValues(
  v: ProgramFormValues,
  e: FormErrorTexts = FORM_ERRORS.en,
): { program: Program & { tiers: ProgramTier[] }; amount: number } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const leadBonus = parseMoney(v.lead_bonus || '0');
  if (leadBonus === undefined) errors.push({ field: e.leadBonus, message: e.money });
  const grace = /^\d{1,4}$/.test(v.grace_period_hours.trim())
    ? Number(v.grace_period_hours.trim())
    : undefined;
  if (grace === undefined || grace > 24 * 365) errors.push({ field: e.grace, message: e.hours });
  const amount = parseMoney(v.amount || moneyText(DEFAULT_PREVIEW_KOPECKS));
  if (!amount) errors.push({ field: e.amount, message: e.positive });
  const tiers: ProgramTier[] = [];
  let ended = false;
  v.tiers.forEach((row, i) => {
    const field = e.tier(i + 1, tierName(i));
    const percent = row.percent.trim();
    const fixed = row.fixed.trim();
    if (!percent && !fixed) {
      ended = true;
      return;
    }
    if (ended) {
      errors.push({ field, message: e.afterEmpty });
      return;
    }
    if (percent && fixed) {
      errors.push({ field, message: e.both });
      return;
    }
    if (percent) {
      const bp = parsePercent(percent);
      if (bp === undefined) errors.push({ field, message: e.percent });
      else tiers.push({ tier: tierName(i), percent_bp: bp });
    } else {
      const kopecks = parseMoney(fixed);
      if (kopecks === undefined) errors.push({ field, message: e.money });
      else tiers.push({ tier: tierName(i), fixed_kopecks: kopecks });
    }
  });
  if (!errors.length && !tiers.length) errors.push({ field: e.tiers, message: e.noTiers });
  const percentSum = tiers.reduce((sum, t) => sum + (t.percent_bp ?? 0), 0);
  if (!errors.length && percentSum > 10000) errors.push({ field: e.tiers, message: e.sum });
  // The API's own rules, for anything the form's checks above did not already say.
  if (!errors.length) errors.push(...tierErrors(tiers, 'tiers'));
  if (errors.length) return { errors };
  return {
    program: { lead_bonus_kopecks: leadBonus!, tiers, grace_period_hours: grace! },
    amount: amount!,
  };
}

export interface PreviewRow {
  tier: string;
  /** What the tier pays for the amount (0 when its share rounds to nothing). */
  amount_kopecks: number;
}

/**
 * What each tier earns for a conversion of `amountKopecks` when every tier's member exists and is
 * active: the dry run's own cascade (src/conversions/cascade.ts) over a full chain.
 */
export function previewCascade(tiers: readonly ProgramTier[], amountKopecks: number): PreviewRow[] {
  const chain = tiers.map((_, i) => ({ id: `m${i}`, serviceUserId: `u${i}`, isActive: true }));
  const shares = new Map(
    cascade(amountKopecks, tiers, chain).map((s) => [s.tier, s.amountKopecks]),
  );
  return tiers.map((t) => ({ tier: t.tier, amount_kopecks: shares.get(t.tier) ?? 0 }));
}

/**
 * `next` (the form's program) keeping what the form cannot show of `previous` (docs/money.md §2):
 * each upline tier's `qualify`, by position, and `compression`. A tier the form removed loses its
 * rule with it.
 */
export function keepingRules<P extends Program & { tiers: ProgramTier[] }>(
  previous: Program,
  next: P,
): P {
  const before = programPhases(previous)[0]?.tiers ?? [];
  const tiers = next.tiers.map((tier, i) =>
    before[i]?.qualify ? { ...tier, qualify: before[i].qualify } : tier,
  );
  return { ...next, tiers, ...(previous.compression ? { compression: true } : {}) };
}

/** Whether `program` has rules the form does not show (qualification, compression). */
export const hasHiddenRules = (program: Program): boolean =>
  program.compression === true ||
  programPhases(program).some((phase) => phase.tiers.some((tier) => tier.qualify));
