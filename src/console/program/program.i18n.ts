import type { Lang } from '../../pages/i18n';

/**
 * How a phase is named (`Phase 1 — first 12 months`): templates with `{n}` (the phase),
 * `{count}` and `{unit}` (the plural of months or conversions by Intl.PluralRules), shared with
 * program.script.ts so that the live preview names phases the same way.
 */
export interface PhaseTitles {
  first: Record<'months' | 'conversions' | 'ever', string>;
  next: Record<'months' | 'conversions' | 'ever', string>;
  units: Record<'months' | 'conversions', Partial<Record<Intl.LDMLPluralRule, string>>>;
}

/** The program page's words (docs/console.md). */
const EN = {
  defaultProgram: 'Default program',
  offerProgram: (name: string) => `Program of the offer “${name}”`,
  groupProgram: (name: string) => `Program of the group “${name}”`,
  targets: 'Programs',
  target: 'Applies to',
  offer: 'Offer',
  group: 'Partner group',
  program: 'Program',
  followsDefault: 'the default program',
  ownProgram: 'its own program',
  edit: 'Edit',
  leadBonus: 'Bonus per lead',
  grace: 'Hours before a bonus is approved',
  tiers: 'Tiers',
  tiersHint:
    'Each tier pays a percent of the conversion or a fixed amount. An upline tier may ask its partner for personal sales first.',
  tier: 'Tier',
  percent: 'Percent',
  fixed: 'or fixed amount',
  qualifyMin: 'Needs own sales of',
  qualifyDays: 'within days',
  referrerRow: 'made the sale',
  addTier: 'Add tier',
  removeTier: (name: string) => `Remove tier ${name}`,
  phase: (n: number) => `Phase ${n}`,
  lasts: 'Lasts',
  forEver: 'for ever',
  forMonths: 'months',
  forConversions: 'conversions',
  unit: 'Months, conversions or for ever',
  addPhase: 'Add phase',
  addPhaseHint: 'Phases pay differently over time, e.g. 25 % for the first 12 months, then 10 %.',
  removePhase: (n: number) => `Remove phase ${n}`,
  compression: 'Compression',
  compressionHint:
    'When an upline is inactive or does not qualify, their tier goes to the next qualified partner up the chain instead of paying nobody.',
  useDefaultOffer: 'This offer follows the default program',
  useDefaultGroup: 'This group uses the default program',
  useDefaultHint:
    'While this is ticked, the fields below show the default program and Save keeps following it; untick it to give a program of its own.',
  promotion: 'Promotion',
  promotionHint:
    'After a conversion, a partner of this group who reaches every threshold given within the window moves to the target group, whose program then pays them.',
  promoteTarget: 'Promote to',
  noPromotion: 'no promotion',
  promoteConversions: 'Own conversions, at least',
  promoteRevenue: 'Own revenue, at least',
  promoteDays: 'Within days',
  exampleAmount: 'Example conversion amount',
  preview: 'Preview',
  save: 'Save',
  previewTitle: (amount: string) => `What each tier earns for a conversion of ${amount}`,
  previewHint:
    'As the dry run computes it, when every tier’s partner exists, is active and qualifies. Updated as you type when scripts run.',
  phaseTitles: {
    first: {
      months: 'Phase {n} — first {count} {unit}',
      conversions: 'Phase {n} — first {count} {unit}',
      ever: 'Phase {n} — for ever',
    },
    next: {
      months: 'Phase {n} — next {count} {unit}',
      conversions: 'Phase {n} — next {count} {unit}',
      ever: 'Phase {n} — then for ever',
    },
    units: {
      months: { one: 'month', other: 'months' },
      conversions: { one: 'conversion', other: 'conversions' },
    },
  } as PhaseTitles,
  needsQualify: 'needs own sales of {amount} within {days} days',
  compressionOn: 'Compression on: an unqualified or inactive upline’s tier goes further up.',
  compressionOff: 'Compression off: an unqualified or inactive upline’s tier pays nobody.',
  earns: 'Earns',
  rule: 'Rule',
  totalPaid: 'Paid to partners',
  remains: 'Remains with you',
  invalid: 'Fix the form to see the preview.',
  saved: 'Program saved.',
  previewed: 'Preview of the form; nothing was saved.',
  viewerNote: 'Your role can see the program but not change it.',
  ownerNote: 'Saving the default program needs the owner role; you can preview changes.',
  errorsTitle: 'The form has errors:',
};
export type ProgramTexts = typeof EN;

const RU: ProgramTexts = {
  defaultProgram: 'Программа по умолчанию',
  offerProgram: (name) => `Программа предложения «${name}»`,
  groupProgram: (name) => `Программа группы «${name}»`,
  targets: 'Программы',
  target: 'Для кого',
  offer: 'Предложение',
  group: 'Группа партнёров',
  program: 'Программа',
  followsDefault: 'программа по умолчанию',
  ownProgram: 'своя программа',
  edit: 'Изменить',
  leadBonus: 'Бонус за лид',
  grace: 'Часов до одобрения бонуса',
  tiers: 'Уровни',
  tiersHint:
    'Каждый уровень получает процент от конверсии или фиксированную сумму. Уровень upline может требовать от партнёра личных продаж.',
  tier: 'Уровень',
  percent: 'Процент',
  fixed: 'или сумма',
  qualifyMin: 'Личные продажи от',
  qualifyDays: 'за дней',
  referrerRow: 'сделал продажу',
  addTier: 'Добавить уровень',
  removeTier: (name) => `Удалить уровень ${name}`,
  phase: (n) => `Этап ${n}`,
  lasts: 'Длится',
  forEver: 'бессрочно',
  forMonths: 'месяцев',
  forConversions: 'конверсий',
  unit: 'Месяцы, конверсии или бессрочно',
  addPhase: 'Добавить этап',
  addPhaseHint:
    'Этапы платят по-разному со временем: например, 25 % первые 12 месяцев, затем 10 %.',
  removePhase: (n) => `Удалить этап ${n}`,
  compression: 'Компрессия',
  compressionHint:
    'Если upline неактивен или не прошёл квалификацию, его уровень получает следующий подходящий партнёр выше по цепочке, а не никто.',
  useDefaultOffer: 'Предложение следует программе по умолчанию',
  useDefaultGroup: 'Группа следует программе по умолчанию',
  useDefaultHint:
    'Пока отмечено, ниже — программа по умолчанию, и сохранение оставляет её; снимите отметку, чтобы задать свою.',
  promotion: 'Повышение',
  promotionHint:
    'После конверсии партнёр этой группы, достигший всех заданных порогов за окно, переходит в целевую группу, и дальше ему платит её программа.',
  promoteTarget: 'Перевести в группу',
  noPromotion: 'без повышения',
  promoteConversions: 'Своих конверсий, не меньше',
  promoteRevenue: 'Своей выручки, не меньше',
  promoteDays: 'За дней',
  exampleAmount: 'Пример суммы конверсии',
  preview: 'Предпросмотр',
  save: 'Сохранить',
  previewTitle: (amount) => `Сколько получит каждый уровень с конверсии на ${amount}`,
  previewHint:
    'Как считает пробный расчёт, если партнёр каждого уровня есть, активен и прошёл квалификацию. Со скриптами обновляется по мере ввода.',
  phaseTitles: {
    first: {
      months: 'Этап {n} — первые {count} {unit}',
      conversions: 'Этап {n} — первые {count} {unit}',
      ever: 'Этап {n} — бессрочно',
    },
    next: {
      months: 'Этап {n} — следующие {count} {unit}',
      conversions: 'Этап {n} — следующие {count} {unit}',
      ever: 'Этап {n} — затем бессрочно',
    },
    units: {
      months: { one: 'месяц', few: 'месяца', many: 'месяцев', other: 'месяца' },
      conversions: { one: 'конверсия', few: 'конверсии', many: 'конверсий', other: 'конверсии' },
    },
  },
  needsQualify: 'нужны личные продажи от {amount} за {days} дн.',
  compressionOn:
    'Компрессия включена: уровень неактивного или неквалифицированного upline уходит выше.',
  compressionOff:
    'Компрессия выключена: уровень неактивного или неквалифицированного upline не платится.',
  earns: 'Получит',
  rule: 'Правило',
  totalPaid: 'Партнёрам',
  remains: 'Остаётся вам',
  invalid: 'Исправьте форму, чтобы увидеть расчёт.',
  saved: 'Программа сохранена.',
  previewed: 'Расчёт по форме; ничего не сохранено.',
  viewerNote: 'Ваша роль позволяет смотреть программу, но не менять её.',
  ownerNote: 'Сохранить программу по умолчанию может владелец; вы можете посмотреть расчёт.',
  errorsTitle: 'В форме есть ошибки:',
};

export const PROGRAM_TEXTS: Record<Lang, ProgramTexts> = { en: EN, ru: RU };

/** `Phase 2 — next 3 conversions`: phase `n` (1-based) lasting `count` of `limit`, or for ever. */
export function phaseTitle(
  titles: PhaseTitles,
  lang: Lang,
  n: number,
  limit: '' | 'months' | 'conversions',
  count: number | undefined,
): string {
  const set = n === 1 ? titles.first : titles.next;
  if (!limit || count === undefined) return set.ever.replace('{n}', String(n));
  const units = titles.units[limit];
  const unit = units[new Intl.PluralRules(lang).select(count)] ?? units.other ?? '';
  return set[limit]
    .replace('{n}', String(n))
    .replace('{count}', String(count))
    .replace('{unit}', unit);
}
