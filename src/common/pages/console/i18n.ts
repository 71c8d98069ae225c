import type { Request } from 'express';
import { canonicalLocale, formatMoney, labelLanguage } from '../../i18n/format';

/** The console's languages (docs/console.md): the tenant's locale decides, `?lang=` switches. */
export type Lang = 'ru' | 'en';
export const LANG_COOKIE = 'svc_console_lang';

const EN = {
  overview: 'Overview',
  partners: 'Partners',
  program: 'Program',
  payouts: 'Payouts',
  bonuses: 'Bonuses',
  integration: 'Integration',
  auditLog: 'Audit log',
  signOut: 'Sign out',
  language: 'Language',
  period: 'Period',
  from: 'From',
  to: 'To',
  show: 'Show',
  lastDays: (n: number) => `Last ${n} days`,
  clicks: 'Clicks',
  newPartners: 'New partners',
  leads: 'Leads',
  conversions: 'Conversions',
  revenue: 'Revenue',
  commission: 'Commission',
  commissionPending: 'Commission pending',
  commissionApproved: 'Commission approved',
  commissionPaid: 'Commission paid',
  clicksChart: 'Clicks per day',
  clicksDesc: (from: string, to: string) => `Clicks for each day from ${from} to ${to}.`,
  activityChart: 'Partners, leads and conversions per day',
  activityDesc: (from: string, to: string) =>
    `New partners, leads and conversions for each day from ${from} to ${to}.`,
  moneyChart: (currency: string) => `Money per day, ${currency}`,
  moneyDesc: (from: string, to: string) =>
    `Revenue and commission for each day from ${from} to ${to}.`,
  funnel: 'Funnel',
  convertedLeads: 'Converted leads',
  ofPrevious: 'of the previous step',
  topPartners: 'Top partners by commission',
  partner: 'Partner',
  day: 'Day',
  dailyTable: 'The numbers of each day',
  nothing: 'Nothing here yet.',
  search: 'Search',
  searchHint: 'Name, email or external id (3+ letters or digits)',
  sort: 'Sort',
  sortJoined: 'Newest first',
  sortOldest: 'Oldest first',
  sortName: 'Name',
  sortLeads: 'Most leads',
  sortClicks: 'Most clicks',
  sortDownline: 'Largest downline',
  email: 'Email',
  externalId: 'External id',
  joined: 'Joined',
  status: 'Status',
  active: 'active',
  inactive: 'inactive',
  downline: 'Downline',
  csv: 'Download CSV',
  pageOf: (p: number, n: number) => `Page ${p} of ${n}`,
  previous: '← Previous',
  next: 'Next →',
  found: (n: number) => `${n} found`,
  profile: 'Profile',
  role: 'Role',
  referrer: 'Referrer',
  upline: 'Upline',
  firstLine: 'First line',
  links: 'Links',
  target: 'Target',
  shortLink: 'Short link',
  created: 'Created',
  amount: 'Amount',
  source: 'Source',
  balance: 'Balance',
  pendingBalance: 'Pending',
  clearedBalance: 'Approved',
  currency: 'Currency',
  deactivate: 'Deactivate',
  activate: 'Activate',
  deactivated: 'Partner deactivated.',
  activated: 'Partner activated.',
  viewerNote: 'Your role can see this partner but not change them.',
  none: 'none',
  contact: 'Contact',
  skipToContent: 'Skip to content',
  chart: 'Chart',
};
export type Texts = typeof EN;

const RU: Texts = {
  overview: 'Обзор',
  partners: 'Партнёры',
  program: 'Программа',
  payouts: 'Выплаты',
  bonuses: 'Бонусы',
  integration: 'Интеграция',
  auditLog: 'Журнал',
  signOut: 'Выйти',
  language: 'Язык',
  period: 'Период',
  from: 'С',
  to: 'По',
  show: 'Показать',
  lastDays: (n) => `${n} дней`,
  clicks: 'Клики',
  newPartners: 'Новые партнёры',
  leads: 'Лиды',
  conversions: 'Конверсии',
  revenue: 'Выручка',
  commission: 'Комиссия',
  commissionPending: 'Комиссия в ожидании',
  commissionApproved: 'Комиссия одобрена',
  commissionPaid: 'Комиссия выплачена',
  clicksChart: 'Клики по дням',
  clicksDesc: (from, to) => `Клики за каждый день с ${from} по ${to}.`,
  activityChart: 'Партнёры, лиды и конверсии по дням',
  activityDesc: (from, to) => `Новые партнёры, лиды и конверсии за каждый день с ${from} по ${to}.`,
  moneyChart: (currency) => `Деньги по дням, ${currency}`,
  moneyDesc: (from, to) => `Выручка и комиссия за каждый день с ${from} по ${to}.`,
  funnel: 'Воронка',
  convertedLeads: 'Лиды с конверсией',
  ofPrevious: 'от предыдущего шага',
  topPartners: 'Лучшие партнёры по комиссии',
  partner: 'Партнёр',
  day: 'День',
  dailyTable: 'Цифры по дням',
  nothing: 'Пока ничего нет.',
  search: 'Найти',
  searchHint: 'Имя, email или внешний id (от 3 букв или цифр)',
  sort: 'Сортировка',
  sortJoined: 'Сначала новые',
  sortOldest: 'Сначала старые',
  sortName: 'По имени',
  sortLeads: 'Больше лидов',
  sortClicks: 'Больше кликов',
  sortDownline: 'Больше структура',
  email: 'Email',
  externalId: 'Внешний id',
  joined: 'Присоединился',
  status: 'Статус',
  active: 'активен',
  inactive: 'неактивен',
  downline: 'Структура',
  csv: 'Скачать CSV',
  pageOf: (p, n) => `Страница ${p} из ${n}`,
  previous: '← Назад',
  next: 'Дальше →',
  found: (n) => `Найдено: ${n}`,
  profile: 'Профиль',
  role: 'Роль',
  referrer: 'Пригласил',
  upline: 'Вышестоящие',
  firstLine: 'Первая линия',
  links: 'Ссылки',
  target: 'Цель',
  shortLink: 'Короткая ссылка',
  created: 'Создан',
  amount: 'Сумма',
  source: 'Источник',
  balance: 'Баланс',
  pendingBalance: 'В ожидании',
  clearedBalance: 'Одобрено',
  currency: 'Валюта',
  deactivate: 'Деактивировать',
  activate: 'Активировать',
  deactivated: 'Партнёр деактивирован.',
  activated: 'Партнёр активирован.',
  viewerNote: 'Ваша роль позволяет смотреть, но не менять.',
  none: 'нет',
  contact: 'Контакт',
  skipToContent: 'К содержанию',
  chart: 'График',
};

export const TEXTS: Record<Lang, Texts> = { en: EN, ru: RU };

const isLang = (v: unknown): v is Lang => v === 'ru' || v === 'en';

/** What the words and numbers of a page take from the organisation (a TenantEntity has them). */
export interface TenantLocale {
  locale: string;
  currency: string;
}

/** The page's language: `?lang=`, else the one this session chose, else the tenant's locale. */
export function pageLang(
  req: Request,
  cookie: string | undefined,
  tenant: TenantLocale,
): { lang: Lang; remember: boolean } {
  const query = req.query.lang;
  if (isLang(query)) return { lang: query, remember: query !== cookie };
  if (isLang(cookie)) return { lang: cookie, remember: false };
  return { lang: labelLanguage(canonicalLocale(tenant.locale) ?? 'ru-RU'), remember: false };
}

/** How numbers and money are written: the tenant's locale when it is of the language. */
export function numberLocale(lang: Lang, tenant: TenantLocale): string {
  const own = canonicalLocale(tenant.locale);
  if (own && labelLanguage(own) === lang) return own;
  return lang === 'ru' ? 'ru-RU' : 'en-US';
}

/** Formatting of one page. */
export interface Fmt {
  lang: Lang;
  t: Texts;
  int: (n: number) => string;
  money: (kopecks: number, currency?: string) => string;
  /** Short amounts of the currency for chart axes: `1,2 млн` (kopecks in). */
  compactMoney: (kopecks: number) => string;
  /** The currency's symbol: `₽`. */
  currencySymbol: string;
}

export function formatter(lang: Lang, tenant: TenantLocale): Fmt {
  const locale = numberLocale(lang, tenant);
  const ints = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  return {
    lang,
    t: TEXTS[lang],
    int: (n) => ints.format(n),
    money: (k, currency = tenant.currency) => formatMoney(k, currency, locale),
    compactMoney: (k) =>
      new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(
        k / 100,
      ),
    currencySymbol:
      new Intl.NumberFormat(locale, { style: 'currency', currency: tenant.currency })
        .formatToParts(0)
        .find((p) => p.type === 'currency')?.value ?? tenant.currency,
  };
}
