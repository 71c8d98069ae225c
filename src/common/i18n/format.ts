/**
 * Human strings of the Embed Data API (SPEC 1 and 4) in `ru-RU` and `en`: money exactly as
 * `Intl.NumberFormat` prints it, relative times from `Intl.RelativeTimeFormat`, and labels.
 */
export type UiLocale = 'ru-RU' | 'en';

/** The locale for human strings: `?locale=ru|en` if given, else the tenant's. */
export function uiLocale(queryLocale: string | undefined, tenantLocale: string): UiLocale {
  if (queryLocale === 'ru') return 'ru-RU';
  if (queryLocale === 'en') return 'en';
  return tenantLocale === 'en' ? 'en' : 'ru-RU';
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** `1 234,56 ₽` (ru-RU, RUB): SPEC 1's formatting, formatters cached per locale and currency. */
export function formatMoney(kopecks: number, currency: string, locale: UiLocale): string {
  const key = `${locale}:${currency}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    moneyFormats.set(key, format);
  }
  return format.format(kopecks / 100);
}

const relativeFormats = new Map<UiLocale, Intl.RelativeTimeFormat>();
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** `5 минут назад` / `5 minutes ago`: the largest whole unit of the time since `at`. */
export function relativeTime(at: Date, locale: UiLocale, now: Date = new Date()): string {
  let format = relativeFormats.get(locale);
  if (!format) {
    format = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
    relativeFormats.set(locale, format);
  }
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
    'ru-RU': {
      new: 'Новый',
      processed: 'В работе',
      converted: 'Конвертирован',
      rejected: 'Отклонён',
    },
    en: { new: 'New', processed: 'In progress', converted: 'Converted', rejected: 'Rejected' },
  },
  bonus: {
    'ru-RU': { pending: 'Ожидает', approved: 'Начислен', rejected: 'Отклонён', reversed: 'Списан' },
    en: { pending: 'Pending', approved: 'Approved', rejected: 'Rejected', reversed: 'Reversed' },
  },
  role: {
    'ru-RU': { partner: 'Партнёр', ambassador: 'Амбассадор', leader: 'Лидер' },
    en: { partner: 'Partner', ambassador: 'Ambassador', leader: 'Leader' },
  },
} as const;

export function label(kind: keyof typeof LABELS, value: string, locale: UiLocale): string {
  return (LABELS[kind][locale] as Record<string, string>)[value] ?? value;
}
