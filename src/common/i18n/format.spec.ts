import fc from 'fast-check';
import {
  canonicalLocale,
  formatMoney,
  isSupportedCurrency,
  label,
  labelLanguage,
  relativeTime,
  uiLocale,
  type UiLocale,
} from './format';

/** README.md, "API overview": the formatted amount is exactly what this Intl call prints. */
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
  it('lets ?locale= (any canonical tag) override the tenant locale', () => {
    expect(uiLocale('ru', 'en')).toBe('ru');
    expect(uiLocale('en', 'ru-RU')).toBe('en');
    expect(uiLocale('en', 'en')).toBe('en');
    expect(uiLocale('ru-RU', 'ru-RU')).toBe('ru-RU');
    expect(uiLocale('de-DE', 'ru-RU')).toBe('de-DE');
    expect(uiLocale('kk-KZ', 'en-US')).toBe('kk-KZ');
  });

  it("falls back to the tenant's locale, whatever it is", () => {
    expect(uiLocale(undefined, 'en')).toBe('en');
    expect(uiLocale(undefined, 'ru-RU')).toBe('ru-RU');
    expect(uiLocale(undefined, 'de-DE')).toBe('de-DE');
    expect(uiLocale(undefined, 'en-US')).toBe('en-US');
    expect(uiLocale(undefined, 'kk-KZ')).toBe('kk-KZ');
    // A stored locale Intl cannot use is read as the default instead of failing every read.
    expect(uiLocale(undefined, 'xx-YY')).toBe('ru-RU');
    expect(uiLocale(undefined, 'not a locale')).toBe('ru-RU');
  });
});

/** Locales of several scripts, separators and numbering systems, and currencies of 0–3 decimals. */
const LOCALES = [
  'ru-RU',
  'ru',
  'ru-KZ',
  'en',
  'en-US',
  'en-GB',
  'en-IN',
  'de-DE',
  'de-CH',
  'fr-FR',
  'kk-KZ',
  'uk-UA',
  'pl-PL',
  'ja-JP',
  'zh-Hant-TW',
  'ar-EG',
  'hi-IN',
  'he-IL',
  'tr-TR',
  'pt-BR',
  'es-MX',
  'de-DE-u-nu-arab',
];
const CURRENCIES = ['RUB', 'USD', 'EUR', 'KZT', 'JPY', 'KWD', 'CHF', 'INR', 'GBP', 'BHD', 'CLF'];

describe('any locale and currency (property)', () => {
  const locale = fc.constantFrom(...LOCALES);
  const currency = fc.oneof(
    fc.constantFrom(...CURRENCIES),
    fc.constantFrom(...Intl.supportedValuesOf('currency')),
  );
  const kopecks = fc.oneof(
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  );

  it("formats a tenant's amounts exactly as Intl prints them for its locale and currency", () => {
    fc.assert(
      fc.property(locale, currency, kopecks, (tenantLocale, cur, k) => {
        expect(formatMoney(k, cur, uiLocale(undefined, tenantLocale))).toBe(
          intlMoney(k, cur, tenantLocale),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('formats with ?locale= over any tenant locale', () => {
    fc.assert(
      fc.property(locale, locale, currency, kopecks, (tenantLocale, query, cur, k) => {
        expect(formatMoney(k, cur, uiLocale(query, tenantLocale))).toBe(intlMoney(k, cur, query));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives relative times exactly as Intl.RelativeTimeFormat prints them', () => {
    const now = new Date('2026-11-21T09:30:00.000Z');
    fc.assert(
      // Whole seconds ago: the rounding of a half second is the unit test's business above.
      fc.property(
        locale,
        fc.integer({ min: 0, max: (3 * 365 * DAY) / SECOND }),
        (tenantLocale, s) => {
          const text = relativeTime(
            new Date(now.getTime() - s * SECOND),
            uiLocale(undefined, tenantLocale),
            now,
          );
          const rtf = new Intl.RelativeTimeFormat(tenantLocale, { numeric: 'always' });
          const [unit, size] =
            (
              [
                ['year', 365 * 86400],
                ['month', 30 * 86400],
                ['week', 7 * 86400],
                ['day', 86400],
                ['hour', 3600],
                ['minute', 60],
                ['second', 1],
              ] as const
            ).find(([, n]) => s >= n) ?? (['second', 1] as const);
          expect(text).toBe(rtf.format(-Math.trunc(s / size), unit));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('labels in Russian for ru and its regional forms, in English for every other locale', () => {
    fc.assert(
      fc.property(locale, (tenantLocale) => {
        const language = tenantLocale.split('-')[0] === 'ru' ? 'ru' : 'en';
        const ui = uiLocale(undefined, tenantLocale);
        expect(labelLanguage(ui)).toBe(language);
        expect(label('lead', 'converted', ui)).toBe(
          language === 'ru' ? 'Конвертирован' : 'Converted',
        );
        expect(label('bonus', 'approved', ui)).toBe(language === 'ru' ? 'Начислен' : 'Approved');
        expect(label('role', 'ambassador', ui)).toBe(
          language === 'ru' ? 'Амбассадор' : 'Ambassador',
        );
      }),
    );
  });

  it('keeps every cached formatter apart (many locales and currencies, in any order)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(locale, currency, kopecks), { minLength: 1, maxLength: 50 }),
        (calls) => {
          for (const [loc, cur, k] of calls) {
            expect(formatMoney(k, cur, uiLocale(undefined, loc))).toBe(intlMoney(k, cur, loc));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('canonicalLocale', () => {
  it('takes any tag Intl supports, in canonical form', () => {
    expect(canonicalLocale('en-US')).toBe('en-US');
    expect(canonicalLocale('en-us')).toBe('en-US');
    expect(canonicalLocale('EN')).toBe('en');
    expect(canonicalLocale('de-DE')).toBe('de-DE');
    expect(canonicalLocale('kk-kz')).toBe('kk-KZ');
    expect(canonicalLocale('ru-KZ')).toBe('ru-KZ');
    expect(canonicalLocale('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(canonicalLocale('de-DE-u-nu-arab')).toBe('de-DE-u-nu-arab');
    for (const tag of LOCALES) expect(canonicalLocale(tag)).toBe(Intl.getCanonicalLocales(tag)[0]);
  });

  it('refuses malformed tags, lists, unsupported languages and overlong tags', () => {
    for (const bad of [
      '',
      ' ',
      'en_US',
      'en-',
      'en US',
      'en,de',
      'i-klingon',
      'x-private',
      'xx-YY',
      'und',
      'tlh',
      '12',
      'en-US-'.padEnd(70, 'x'),
      `en-${'a1234567-'.repeat(7)}x`,
    ]) {
      expect({ bad, tag: canonicalLocale(bad) }).toEqual({ bad, tag: undefined });
    }
    for (const notString of [undefined, null, 1, ['en'], { toString: () => 'en' }]) {
      expect(canonicalLocale(notString)).toBeUndefined();
    }
  });

  it('answers the same from its cache, and past the cache bound', () => {
    for (let i = 0; i < 600; i++) expect(canonicalLocale(`en-US-x-n${i}`)).toBe(`en-US-x-n${i}`);
    expect(canonicalLocale('en-us')).toBe('en-US');
    expect(canonicalLocale('xx-YY')).toBeUndefined();
    expect(canonicalLocale('xx-YY')).toBeUndefined();
  });
});

describe('isSupportedCurrency', () => {
  it('takes every ISO 4217 code Intl knows, in upper case', () => {
    for (const code of ['RUB', 'USD', 'EUR', 'KZT', 'JPY', 'CHF'])
      expect(isSupportedCurrency(code)).toBe(true);
    for (const code of Intl.supportedValuesOf('currency'))
      expect(isSupportedCurrency(code)).toBe(true);
  });

  it('refuses lower case, unknown codes and anything but a string', () => {
    for (const bad of ['usd', 'Usd', 'XYZ', 'RUBL', 'RU', '', 'ABC', 1, null, undefined]) {
      expect({ bad, ok: isSupportedCurrency(bad) }).toEqual({ bad, ok: false });
    }
  });
});

describe('label', () => {
  it('names lead statuses as docs/embedding.md §3 does', () => {
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

  it('names roles as docs/embedding.md §3 does', () => {
    expect(label('role', 'partner', 'ru-RU')).toBe('Партнёр');
    expect(label('role', 'ambassador', 'ru-RU')).toBe('Амбассадор');
    expect(label('role', 'leader', 'ru-RU')).toBe('Лидер');
    expect(label('role', 'partner', 'en')).toBe('Partner');
    expect(label('role', 'ambassador', 'en')).toBe('Ambassador');
    expect(label('role', 'leader', 'en')).toBe('Leader');
  });

  it('gives every bonus status a distinct label per locale', () => {
    for (const locale of ['ru-RU', 'en'] as UiLocale[]) {
      // `paid` too (docs/payouts.md §2): the widgets show a paid bonus's label, never its code.
      const statuses = ['pending', 'approved', 'paid', 'rejected', 'reversed'];
      const texts = statuses.map((s) => label('bonus', s, locale));
      expect(new Set(texts).size).toBe(5);
      for (const [i, s] of statuses.entries()) {
        expect(texts[i]).not.toBe(s);
      }
    }
  });

  it('falls back to English for a locale of another language, and ru-* to Russian', () => {
    expect(label('lead', 'new', 'de-DE')).toBe('New');
    expect(label('bonus', 'pending', 'kk-KZ')).toBe('Pending');
    expect(label('role', 'leader', 'en-US')).toBe('Leader');
    expect(label('lead', 'new', 'ru-KZ')).toBe('Новый');
    expect(label('role', 'leader', 'ru')).toBe('Лидер');
    expect(label('bonus', 'pending', 'rue')).toBe('Pending'); // Rusyn is not Russian
  });

  it('falls back to the raw value for an unknown one', () => {
    expect(label('lead', 'archived', 'ru-RU')).toBe('archived');
    expect(label('bonus', 'frozen', 'en')).toBe('frozen');
    expect(label('role', 'founder', 'en')).toBe('founder');
  });
});
