/**
 * Human strings of the Embed Data API (README.md, "API overview" and 4) in any locale `Intl`
 * supports: money exactly as `Intl.NumberFormat` prints it, relative times from
 * `Intl.RelativeTimeFormat`, and labels, which exist in Russian and English (every locale whose
 * language is not `ru` gets English).
 *
 * A locale here is always a canonical BCP 47 tag (`canonicalLocale`): what a tenant stores and
 * what `?locale=` becomes after validation.
 */
export type UiLocale = string;

/** The tenant's locale and currency when it names none (README.md, "API overview", 2). */
export const DEFAULT_LOCALE = 'ru-RU';
export const DEFAULT_CURRENCY = 'RUB';
/** Longer tags are refused: real ones are short, and every one may become a cache key. */
export const MAX_LOCALE_LENGTH = 64;

/** The languages that have labels of their own; every other locale falls back to English. */
export type LabelLanguage = 'ru' | 'en';

/**
 * Cached values of the hot read path (one per locale, or locale and currency). Any valid tag may
 * arrive in `?locale=`, so each cache is bounded: past `MAX_CACHED` entries the oldest goes.
 */
const MAX_CACHED = 512;
function cached<V>(cache: Map<string, V>, key: string, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined && !cache.has(key)) {
    value = make();
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, value);
  }
  return value as V;
}

const canonicalTags = new Map<string, string | null>();

/**
 * The canonical form of a BCP 47 tag that `Intl.NumberFormat` supports (`en-us` → `en-US`), or
 * undefined for anything else: a malformed tag (`i-klingon`, `en_US`), a list, one longer than 64
 * characters, or a well-formed one no locale data stands behind (`xx-YY`, `und`).
 */
export function canonicalLocale(value: unknown): UiLocale | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LOCALE_LENGTH) {
    return undefined;
  }
  return (
    cached(canonicalTags, value, () => {
      let tags: string[];
      try {
        tags = Intl.getCanonicalLocales(value);
      } catch {
        return null;
      }
      if (tags.length !== 1) return null;
      return Intl.NumberFormat.supportedLocalesOf(tags).length === 1 ? tags[0] : null;
    }) ?? undefined
  );
}

let currencies: Set<string> | undefined;
/** An ISO 4217 code `Intl` knows (`Intl.supportedValuesOf('currency')`), upper case: `KZT`. */
export function isSupportedCurrency(value: unknown): boolean {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  return typeof value === 'string' && currencies.has(value);
}

/**
 * The locale of an answer: `?locale=` (already canonical, see `canonicalLocale`) when given,
 * else the tenant's. A stored locale Intl cannot use (none can be saved through the API) is
 * taken as the default rather than failing every read.
 */
export function uiLocale(queryLocale: UiLocale | undefined, tenantLocale: string): UiLocale {
  return queryLocale ?? canonicalLocale(tenantLocale) ?? DEFAULT_LOCALE;
}

/** `ru`, `ru-RU`, `ru-KZ` … have Russian labels; every other locale English ones. */
export function labelLanguage(locale: UiLocale): LabelLanguage {
  return locale.startsWith('ru') && (locale.length === 2 || locale[2] === '-') ? 'ru' : 'en';
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * `1 234,56 ₽` (ru-RU, RUB), `$1,234.56` (en-US, USD), `1.234,56 €` (de-DE, EUR), exactly as
 * `Intl.NumberFormat` prints them (docs/money.md §1); one formatter per locale and currency is
 * kept for the next answer.
 */
export function formatMoney(kopecks: number, currency: string, locale: UiLocale): string {
  return cached(
    moneyFormats,
    `${locale} ${currency}`,
    () =>
      new Intl.NumberFormat(locale, {
        style: 'currency',
        currency,
        minimumFractionDigits: 2,
        maximumFractionDigits: 2,
      }),
  ).format(kopecks / 100);
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** A UTC calendar day, long form: `14 декабря 2026 г.` (ru-RU), `December 14, 2026` (en-US). */
export function formatDay(day: Date, locale: UiLocale): string {
  return cached(
    dayFormats,
    locale,
    () =>
      new Intl.DateTimeFormat(locale, {
        day: 'numeric',
        month: 'long',
        year: 'numeric',
        timeZone: 'UTC',
      }),
  ).format(day);
}

const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** `5 минут назад` / `5 minutes ago` / `vor 5 Minuten`: the largest whole unit since `at`. */
export function relativeTime(at: Date, locale: UiLocale, now: Date = new Date()): string {
  const format = cached(
    relativeFormats,
    locale,
    () => new Intl.RelativeTimeFormat(locale, { numeric: 'always' }),
  );
  const seconds = Math.round((at.getTime() - now.getTime()) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') {
      // Math.round/trunc give +0 for "just now", which Intl prints in the future tense.
      const value = Math.trunc(seconds / size);
      return format.format(value === 0 ? -0 : value, unit);
    }
  }
  return format.format(0, 'second');
}

const LABELS = {
  lead: {
    ru: {
      new: 'Новый',
      processed: 'В работе',
      converted: 'Конвертирован',
      rejected: 'Отклонён',
    },
    en: { new: 'New', processed: 'In progress', converted: 'Converted', rejected: 'Rejected' },
  },
  bonus: {
    ru: {
      pending: 'Ожидает',
      approved: 'Начислен',
      paid: 'Выплачен',
      rejected: 'Отклонён',
      reversed: 'Списан',
    },
    en: {
      pending: 'Pending',
      approved: 'Approved',
      paid: 'Paid',
      rejected: 'Rejected',
      reversed: 'Reversed',
    },
  },
  role: {
    ru: { partner: 'Партнёр', ambassador: 'Амбассадор', leader: 'Лидер' },
    en: { partner: 'Partner', ambassador: 'Ambassador', leader: 'Leader' },
  },
} as const;

/** The label of a status or role in the locale's language (`labelLanguage`); else the value. */
export function label(kind: keyof typeof LABELS, value: string, locale: UiLocale): string {
  return (LABELS[kind][labelLanguage(locale)] as Record<string, string>)[value] ?? value;
}
