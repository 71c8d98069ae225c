import type { Request } from 'express';
import { canonicalLocale, formatMoney, labelLanguage } from '../common/i18n/format';

/** The frame's languages (docs/console.md): the tenant's locale decides, `?lang=` switches. */
export type Lang = 'ru' | 'en';
export const LANG_COOKIE = 'svc_console_lang';

/** The frame's own words (navigation, pager, list head); a feature's words extend them. */
const EN = {
  signOut: 'Sign out',
  language: 'Language',
  csv: 'Download CSV',
  pageOf: (p: number, n: number) => `Page ${p} of ${n}`,
  previous: '← Previous',
  next: 'Next →',
  found: (n: number) => `${n} found`,
  skipToContent: 'Skip to content',
};
export type FrameTexts = typeof EN;

const RU: FrameTexts = {
  signOut: 'Выйти',
  language: 'Язык',
  csv: 'Скачать CSV',
  pageOf: (p, n) => `Страница ${p} из ${n}`,
  previous: '← Назад',
  next: 'Дальше →',
  found: (n) => `Найдено: ${n}`,
  skipToContent: 'К содержанию',
};

export const FRAME_TEXTS: Record<Lang, FrameTexts> = { en: EN, ru: RU };

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

/** Formatting of one page, with the words `T` of its feature (the frame's among them). */
export interface Fmt<T extends FrameTexts = FrameTexts> {
  lang: Lang;
  t: T;
  int: (n: number) => string;
  money: (kopecks: number, currency?: string) => string;
  /** Short amounts of the currency for chart axes: `1,2 млн` (kopecks in). */
  compactMoney: (kopecks: number) => string;
  /** The currency's symbol: `₽`. */
  currencySymbol: string;
}

export function formatter<T extends FrameTexts>(
  lang: Lang,
  tenant: TenantLocale,
  texts: Record<Lang, T>,
): Fmt<T> {
  const locale = numberLocale(lang, tenant);
  const ints = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  return {
    lang,
    t: texts[lang],
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
