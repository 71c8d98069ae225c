import type { Lang } from '../../pages/i18n';

/** The bounties page's words (ru/en); console.i18n.ts has the rest. */
const EN = {
  title: 'Bounties',
  intro:
    'A one-time bonus for partners whose own sales in a period reach a threshold. Each partner gets it once; a later refund does not take it back.',
  empty: 'No bounties yet.',
  create: 'New bounty',
  name: 'Name',
  group: 'Partners',
  allPartners: 'All partners',
  metric: 'Counts',
  conversions: 'Sales',
  revenue: 'Revenue',
  threshold: 'Threshold (sales, or revenue in kopecks)',
  amount: 'Bonus',
  currency: 'Currency',
  startsAt: 'Starts (UTC)',
  endsAt: 'Ends (UTC, optional)',
  submit: 'Create',
  created: 'The bounty was created.',
  ended: 'The bounty was ended.',
  end: 'End now',
  period: 'Period',
  openEnded: 'open-ended',
  reachedBy: (n: number) => `Reached by ${n}`,
  progress: 'Progress',
  partner: 'Partner',
  reached: 'Reached',
  notYet: 'not yet',
  noProgress: 'Nobody has made progress yet.',
  managersOnly: 'Managers and owners create and end bounties.',
};

const RU: typeof EN = {
  title: 'Цели',
  intro:
    'Разовый бонус партнёрам, чьи собственные продажи за период достигли порога. Каждый партнёр получает его один раз; последующий возврат его не отменяет.',
  empty: 'Целей пока нет.',
  create: 'Новая цель',
  name: 'Название',
  group: 'Партнёры',
  allPartners: 'Все партнёры',
  metric: 'Что считаем',
  conversions: 'Продажи',
  revenue: 'Выручка',
  threshold: 'Порог (продажи или выручка в копейках)',
  amount: 'Бонус',
  currency: 'Валюта',
  startsAt: 'Начало (UTC)',
  endsAt: 'Конец (UTC, необязательно)',
  submit: 'Создать',
  created: 'Цель создана.',
  ended: 'Цель завершена.',
  end: 'Завершить сейчас',
  period: 'Период',
  openEnded: 'без конца',
  reachedBy: (n) => `Достигли: ${n}`,
  progress: 'Прогресс',
  partner: 'Партнёр',
  reached: 'Достигнута',
  notYet: 'ещё нет',
  noProgress: 'Прогресса пока нет.',
  managersOnly: 'Создают и завершают цели менеджеры и владельцы.',
};

export type BountiesTexts = typeof EN;

export const BOUNTIES_TEXTS: Record<Lang, BountiesTexts> = { en: EN, ru: RU };
