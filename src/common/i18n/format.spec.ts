import { formatMoney, label, relativeTime, uiLocale, type UiLocale } from './format';

/** SPEC 1: the formatted amount is exactly what this Intl call prints. */
function intlMoney(kopecks: number, currency: string, locale: string): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(kopecks / 100);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('formatMoney', () => {
  const locales: UiLocale[] = ['ru-RU', 'en'];
  const currencies = ['RUB', 'USD'];
  const amounts = [
    0,
    1,
    -1,
    99,
    100,
    12_345,
    -12_345,
    123_456,
    100_000_000,
    123_456_789_012,
    -987_654_321_098,
    Number.MAX_SAFE_INTEGER,
  ];

  for (const locale of locales) {
    for (const currency of currencies) {
      it.each(amounts)(`${locale} ${currency}: %d kopecks as Intl prints it`, (kopecks) => {
        expect(formatMoney(kopecks, currency, locale)).toBe(intlMoney(kopecks, currency, locale));
      });
    }
  }

  it('prints Russian amounts with a decimal comma, Intl spaces and the rouble sign', () => {
    expect(formatMoney(12_345, 'RUB', 'ru-RU')).toBe('123,45\u00a0₽');
    expect(formatMoney(123_456, 'RUB', 'ru-RU')).toBe(intlMoney(123_456, 'RUB', 'ru-RU'));
    expect(formatMoney(123_456, 'RUB', 'ru-RU')).toMatch(/^1\s234,56\s₽$/);
    expect(formatMoney(0, 'RUB', 'ru-RU')).toBe('0,00\u00a0₽');
    expect(formatMoney(1, 'RUB', 'ru-RU')).toMatch(/^0,01\s₽$/);
    expect(formatMoney(-12_345, 'RUB', 'ru-RU')).toMatch(/^-123,45\s₽$/);
  });

  it('prints English amounts with a decimal point and two decimals', () => {
    expect(formatMoney(12_345, 'USD', 'en')).toBe('$123.45');
    expect(formatMoney(1, 'USD', 'en')).toBe('$0.01');
    expect(formatMoney(-100, 'USD', 'en')).toBe('-$1.00');
    expect(formatMoney(123_456_789, 'USD', 'en')).toBe('$1,234,567.89');
  });

  it('never mixes up cached formats of different locales and currencies', () => {
    const a = formatMoney(5_000, 'RUB', 'ru-RU');
    const b = formatMoney(5_000, 'USD', 'ru-RU');
    const c = formatMoney(5_000, 'RUB', 'en');
    const d = formatMoney(5_000, 'USD', 'en');
    expect(new Set([a, b, c, d]).size).toBe(4);
    expect(formatMoney(5_000, 'RUB', 'ru-RU')).toBe(a);
    expect(formatMoney(5_000, 'EUR', 'en')).toBe(intlMoney(5_000, 'EUR', 'en'));
  });
});

describe('relativeTime', () => {
  const now = new Date('2026-11-21T09:30:00.000Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const rtf = (locale: string) => new Intl.RelativeTimeFormat(locale, { numeric: 'always' });

  it('says "5 минут назад" for five minutes in ru-RU and "2 hours ago" in en', () => {
    expect(relativeTime(ago(5 * MINUTE), 'ru-RU', now)).toBe('5 минут назад');
    expect(relativeTime(ago(2 * HOUR), 'en', now)).toBe('2 hours ago');
    expect(relativeTime(ago(5 * MINUTE), 'en', now)).toBe('5 minutes ago');
    expect(relativeTime(ago(2 * HOUR), 'ru-RU', now)).toBe(rtf('ru-RU').format(-2, 'hour'));
  });

  it('uses seconds under a minute', () => {
    expect(relativeTime(ago(30 * SECOND), 'en', now)).toBe('30 seconds ago');
    expect(relativeTime(ago(59 * SECOND), 'en', now)).toBe('59 seconds ago');
    expect(relativeTime(ago(1 * SECOND), 'en', now)).toBe('1 second ago');
    expect(relativeTime(ago(30 * SECOND), 'ru-RU', now)).toBe(rtf('ru-RU').format(-30, 'second'));
  });

  it('puts something made this very moment in the past ("0 seconds ago", not "in 0 seconds")', () => {
    expect(relativeTime(now, 'en', now)).toBe('0 seconds ago');
    expect(relativeTime(now, 'ru-RU', now)).toBe(rtf('ru-RU').format(-0, 'second'));
    expect(relativeTime(ago(400), 'en', now)).toBe('0 seconds ago');
  });

  it('picks the largest whole unit and truncates to it', () => {
    const cases: [number, number, Intl.RelativeTimeFormatUnit][] = [
      [60 * SECOND, 1, 'minute'],
      [119 * SECOND, 1, 'minute'],
      [59 * MINUTE + 59 * SECOND, 59, 'minute'],
      [HOUR, 1, 'hour'],
      [23 * HOUR + 59 * MINUTE, 23, 'hour'],
      [DAY, 1, 'day'],
      [3 * DAY + 5 * HOUR, 3, 'day'],
      [6 * DAY + 23 * HOUR, 6, 'day'],
      [7 * DAY, 1, 'week'],
      [20 * DAY, 2, 'week'],
      [30 * DAY, 1, 'month'],
      [200 * DAY, 6, 'month'],
      [365 * DAY, 1, 'year'],
      [800 * DAY, 2, 'year'],
    ];
    for (const locale of ['ru-RU', 'en'] as UiLocale[]) {
      for (const [ms, value, unit] of cases) {
        expect({ ms, text: relativeTime(ago(ms), locale, now) }).toEqual({
          ms,
          text: rtf(locale).format(-value, unit),
        });
      }
    }
  });

  it('speaks of the future for a later time and defaults `now` to the clock', () => {
    expect(relativeTime(new Date(now.getTime() + 3 * HOUR), 'en', now)).toBe('in 3 hours');
    expect(relativeTime(new Date(Date.now() - 10 * MINUTE), 'en')).toBe('10 minutes ago');
  });
});

describe('uiLocale', () => {
  it('lets ?locale=ru|en override the tenant locale', () => {
    expect(uiLocale('ru', 'en')).toBe('ru-RU');
    expect(uiLocale('en', 'ru-RU')).toBe('en');
    expect(uiLocale('en', 'en')).toBe('en');
    expect(uiLocale('ru', 'ru-RU')).toBe('ru-RU');
  });

  it("falls back to the tenant's locale, and to ru-RU for anything else", () => {
    expect(uiLocale(undefined, 'en')).toBe('en');
    expect(uiLocale(undefined, 'ru-RU')).toBe('ru-RU');
    expect(uiLocale(undefined, 'de-DE')).toBe('ru-RU');
    expect(uiLocale('de', 'en')).toBe('en');
  });
});

describe('label', () => {
  it('names lead statuses as SPEC 4 does', () => {
    const ru = {
      new: 'Новый',
      processed: 'В работе',
      converted: 'Конвертирован',
      rejected: 'Отклонён',
    };
    const en = {
      new: 'New',
      processed: 'In progress',
      converted: 'Converted',
      rejected: 'Rejected',
    };
    for (const [status, text] of Object.entries(ru))
      expect(label('lead', status, 'ru-RU')).toBe(text);
    for (const [status, text] of Object.entries(en)) expect(label('lead', status, 'en')).toBe(text);
  });

  it('names roles as SPEC 4 does', () => {
    expect(label('role', 'partner', 'ru-RU')).toBe('Партнёр');
    expect(label('role', 'ambassador', 'ru-RU')).toBe('Амбассадор');
    expect(label('role', 'leader', 'ru-RU')).toBe('Лидер');
    expect(label('role', 'partner', 'en')).toBe('Partner');
    expect(label('role', 'ambassador', 'en')).toBe('Ambassador');
    expect(label('role', 'leader', 'en')).toBe('Leader');
  });

  it('gives every bonus status a distinct label per locale', () => {
    for (const locale of ['ru-RU', 'en'] as UiLocale[]) {
      const texts = ['pending', 'approved', 'rejected', 'reversed'].map((s) =>
        label('bonus', s, locale),
      );
      expect(new Set(texts).size).toBe(4);
      for (const [i, s] of ['pending', 'approved', 'rejected', 'reversed'].entries()) {
        expect(texts[i]).not.toBe(s);
      }
    }
  });

  it('falls back to the raw value for an unknown one', () => {
    expect(label('lead', 'archived', 'ru-RU')).toBe('archived');
    expect(label('bonus', 'frozen', 'en')).toBe('frozen');
    expect(label('role', 'founder', 'en')).toBe('founder');
  });
});
