import type { FieldError } from '../../common/errors/domain-error';
import { tierName } from '../../tenants/program';

/**
 * A refusal of the program form, on its field: `on` is the anchor the page shows it at
 * (`lead_bonus`, `grace_period_hours`, `amount`, `phases`, `phase_<p>`, `phase_<p>_tiers`,
 * `p<p>_t<i>` a tier row, `p<p>_t<i>_q` its qualification, `promote_to…`); `field` names it as
 * the form labels it.
 */
export interface FormError extends FieldError {
  on: string;
}

/** What is wrong with a program form, in the page's language. */
const FORM_ERRORS_EN = {
  leadBonus: 'Bonus per lead',
  grace: 'Hours before approval',
  amount: 'Example amount',
  tiers: 'Tiers',
  phases: 'Phases',
  phase: (p: number) => `Phase ${p}`,
  phaseTiers: (p: number) => `Phase ${p}, tiers`,
  tier: (p: number | undefined, n: number, name: string) =>
    p === undefined ? `Tier ${n} (${name})` : `Phase ${p}, tier ${n} (${name})`,
  money: 'must be an amount such as 100.00',
  hours: 'must be whole hours, 0 to 8760',
  positive: 'must be an amount above 0',
  afterEmpty: 'comes after an empty tier; fill the tiers in order',
  both: 'give a percent or a fixed amount, not both',
  noAmount: 'give a percent or a fixed amount',
  percent: 'percent must be 0 to 100, such as 2.5',
  count: 'must be a whole number from 1 to 100000',
  qualifyMin: 'the minimum personal sales must be an amount above 0, such as 500.00',
  qualifyDays: 'the qualification window must be whole days, 1 to 3650',
  noTiers: 'at least the referrer tier is needed',
  maxTiers: (n: string) => `at most ${n} tiers`,
  sum: 'the percents of all tiers add up to more than 100 %',
  order: (name: string) => `must be the tier “${name}” (tiers go in chain order)`,
  referrerQualify: 'only upline tiers may ask for qualification (the referrer made the sale)',
  noPhases: 'at least one phase is needed',
  maxPhases: (n: string) => `at most ${n} phases`,
  oneLimit: 'give months or conversions, not both',
  needLimit: 'needs months or conversions (only the last phase may last for ever)',
  invalid: 'is not valid',
  promotion: 'Promotion',
  promoteTarget: 'Promote to',
  promoteMin: 'give at least the conversions or the revenue to reach',
  promoteConversions: 'the conversions must be a whole number from 1 to 1000000000',
  promoteRevenue: 'the revenue must be an amount above 0, such as 1000.00',
  promoteDays: 'the window must be whole days, 1 to 3660',
  promoteLoop: 'this promotion would make a loop of groups promoting to each other',
  noGroup: 'no such group',
};
export type FormErrorTexts = typeof FORM_ERRORS_EN;

export const FORM_ERRORS: Record<'en' | 'ru', FormErrorTexts> = {
  en: FORM_ERRORS_EN,
  ru: {
    leadBonus: 'Бонус за лид',
    grace: 'Часов до одобрения',
    amount: 'Пример суммы',
    tiers: 'Уровни',
    phases: 'Этапы',
    phase: (p) => `Этап ${p}`,
    phaseTiers: (p) => `Этап ${p}, уровни`,
    tier: (p, n, name) =>
      p === undefined ? `Уровень ${n} (${name})` : `Этап ${p}, уровень ${n} (${name})`,
    money: 'нужна сумма вида 100.00',
    hours: 'нужно целое число часов от 0 до 8760',
    positive: 'нужна сумма больше 0',
    afterEmpty: 'идёт после пустого уровня; заполняйте уровни по порядку',
    both: 'укажите процент или фиксированную сумму, не то и другое',
    noAmount: 'укажите процент или фиксированную сумму',
    percent: 'процент от 0 до 100, например 2,5',
    count: 'нужно целое число от 1 до 100000',
    qualifyMin: 'минимум личных продаж — сумма больше 0, например 500.00',
    qualifyDays: 'окно квалификации — целое число дней от 1 до 3650',
    noTiers: 'нужен хотя бы уровень referrer',
    maxTiers: (n) => `не больше ${n} уровней`,
    sum: 'проценты всех уровней вместе больше 100 %',
    order: (name) => `должен быть уровень «${name}» (уровни идут по цепочке)`,
    referrerQualify: 'квалификация бывает только у уровней upline (продажу сделал сам referrer)',
    noPhases: 'нужен хотя бы один этап',
    maxPhases: (n) => `не больше ${n} этапов`,
    oneLimit: 'укажите месяцы или конверсии, не то и другое',
    needLimit: 'нужны месяцы или конверсии (бессрочным может быть только последний этап)',
    invalid: 'неверное значение',
    promotion: 'Повышение',
    promoteTarget: 'Перевести в группу',
    promoteMin: 'укажите хотя бы число конверсий или выручку',
    promoteConversions: 'число конверсий — целое от 1 до 1000000000',
    promoteRevenue: 'выручка — сумма больше 0, например 1000.00',
    promoteDays: 'окно — целое число дней от 1 до 3660',
    promoteLoop: 'такое повышение замкнёт группы в круг',
    noGroup: 'нет такой группы',
  },
};

/**
 * Each message of the Admin API's program validation (src/tenants/program.ts: tierErrors,
 * phaseErrors) in the page's language; program.form.spec.ts makes every message they can give
 * and checks that it is here.
 */
const API_MESSAGES: [RegExp, (e: FormErrorTexts, m: RegExpExecArray) => string][] = [
  [/^must have at least the referrer tier$/, (e) => e.noTiers],
  [/^must have at most (\d+) tiers$/, (e, m) => e.maxTiers(m[1])],
  [/^must be "([a-z0-9_]+)" \(tiers go in chain order\)$/, (e, m) => e.order(m[1])],
  [/^must have exactly one of percent_bp and fixed_kopecks$/, (e) => e.noAmount],
  [/^is for upline tiers only/, (e) => e.referrerQualify],
  [/^percent_bp of all tiers must add up to at most/, (e) => e.sum],
  [/^must have at least one phase$/, (e) => e.noPhases],
  [/^must have at most (\d+) phases$/, (e, m) => e.maxPhases(m[1])],
  [/^must have at most one of months and conversions$/, (e) => e.oneLimit],
  [/^must have months or conversions/, (e) => e.needLimit],
  [/^must be a whole number from 1 to 100000$/, (e) => e.count],
  [/^must be an (object|array)$/, (e) => e.invalid],
];

/** The API's message in the page's language (undefined: not one of API_MESSAGES). */
export function translatedApiMessage(message: string, e: FormErrorTexts): string | undefined {
  for (const [pattern, text] of API_MESSAGES) {
    const m = pattern.exec(message);
    if (m) return text(e, m);
  }
  return undefined;
}

/**
 * The Admin API's errors of a program (fields `tiers…` or `phases…`) on the form's fields: a
 * tier's error on its row, a phase's on its limit, a list's on the list.
 */
export function apiFormErrors(errors: readonly FieldError[], e: FormErrorTexts): FormError[] {
  return errors.map(({ field, message }) => {
    const text = translatedApiMessage(message, e) ?? message;
    const phased = /^phases\.(\d+)(?:\.(.*))?$/.exec(field);
    const p = phased ? Number(phased[1]) : 0;
    const rest = phased ? (phased[2] ?? '') : field;
    const tier = /^tiers\.(\d+)/.exec(rest);
    const phaseNo = phased ? p + 1 : undefined;
    if (tier) {
      const i = Number(tier[1]);
      return { on: `p${p}_t${i}`, field: e.tier(phaseNo, i + 1, tierName(i)), message: text };
    }
    if (rest === 'tiers') {
      return {
        on: `phase_${p}_tiers`,
        field: phaseNo ? e.phaseTiers(phaseNo) : e.tiers,
        message: text,
      };
    }
    if (phased) return { on: `phase_${p}`, field: e.phase(p + 1), message: text };
    return { on: 'phases', field: e.phases, message: text };
  });
}
