import type { Lang } from '../../pages/i18n';

/** The program page's words (docs/console.md). */
const EN = {
  defaultProgram: 'Default program',
  offerProgram: (name: string) => `Program of the offer “${name}”`,
  offers: 'Offers',
  offer: 'Offer',
  program: 'Program',
  followsDefault: 'the default program',
  ownProgram: 'its own program',
  edit: 'Edit',
  leadBonus: 'Bonus per lead',
  grace: 'Hours before a bonus is approved',
  tiers: 'Tiers',
  tiersHint:
    'Each tier pays a percent of the conversion or a fixed amount, not both. Tiers end at the first empty row; save to get more empty rows.',
  tier: 'Tier',
  percent: 'Percent',
  fixed: 'Fixed amount',
  useDefault: 'This offer follows the default program',
  exampleAmount: 'Example conversion amount',
  preview: 'Preview',
  save: 'Save',
  previewTitle: (amount: string) => `What each tier earns for a conversion of ${amount}`,
  previewHint:
    'As the dry run computes it, when every tier’s partner exists and is active. Updated as you type when scripts run.',
  earns: 'Earns',
  rule: 'Rule',
  totalPaid: 'Paid to partners',
  remains: 'Remains with you',
  invalid: 'Fix the form to see the preview.',
  saved: 'Program saved.',
  previewed: 'Preview of the form; nothing was saved.',
  phased:
    'This program pays by phases (docs/money.md). The form shows the tiers of its first phase; saving it replaces all phases with these tiers. Change phases with the Admin API.',
  ruled:
    'This program has qualification or compression rules (docs/money.md). The form edits the tiers’ amounts; saving keeps those rules. Change them with the Admin API.',
  viewerNote: 'Your role can see the program but not change it.',
  ownerNote: 'Saving the default program needs the owner role; you can preview changes.',
  none: 'no tiers',
  urlOf: 'Page',
  created: 'Created',
};
export type ProgramTexts = typeof EN;

const RU: ProgramTexts = {
  defaultProgram: 'Программа по умолчанию',
  offerProgram: (name) => `Программа предложения «${name}»`,
  offers: 'Предложения',
  offer: 'Предложение',
  program: 'Программа',
  followsDefault: 'программа по умолчанию',
  ownProgram: 'своя программа',
  edit: 'Изменить',
  leadBonus: 'Бонус за лид',
  grace: 'Часов до одобрения бонуса',
  tiers: 'Уровни',
  tiersHint:
    'Каждый уровень получает процент от конверсии или фиксированную сумму, не то и другое. Уровни заканчиваются на первой пустой строке; сохраните, чтобы получить ещё пустые строки.',
  tier: 'Уровень',
  percent: 'Процент',
  fixed: 'Фиксированная сумма',
  useDefault: 'Предложение следует программе по умолчанию',
  exampleAmount: 'Пример суммы конверсии',
  preview: 'Предпросмотр',
  save: 'Сохранить',
  previewTitle: (amount) => `Сколько получит каждый уровень с конверсии на ${amount}`,
  previewHint:
    'Как считает пробный расчёт, если партнёр каждого уровня есть и активен. Со скриптами обновляется по мере ввода.',
  earns: 'Получит',
  rule: 'Правило',
  totalPaid: 'Партнёрам',
  remains: 'Остаётся вам',
  invalid: 'Исправьте форму, чтобы увидеть расчёт.',
  saved: 'Программа сохранена.',
  previewed: 'Расчёт по форме; ничего не сохранено.',
  phased:
    'Эта программа платит по этапам (docs/money.md). В форме — ставки её первого этапа; сохранение заменит все этапы этими ставками. Этапы меняются через Admin API.',
  ruled:
    'В этой программе есть условия квалификации или компрессия (docs/money.md). Форма меняет ставки уровней; при сохранении эти условия сохраняются. Изменить их можно через Admin API.',
  viewerNote: 'Ваша роль позволяет смотреть программу, но не менять её.',
  ownerNote: 'Сохранить программу по умолчанию может владелец; вы можете посмотреть расчёт.',
  none: 'нет уровней',
  urlOf: 'Страница',
  created: 'Создано',
};

export const PROGRAM_TEXTS: Record<Lang, ProgramTexts> = { en: EN, ru: RU };
