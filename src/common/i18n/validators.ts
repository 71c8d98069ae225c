import { Transform } from 'class-transformer';
import { registerDecorator, type ValidationOptions } from 'class-validator';
import { canonicalLocale, isSupportedCurrency, MAX_LOCALE_LENGTH } from './format';

/**
 * A locale field (a tenant's `locale`, `?locale=`): any BCP 47 tag `Intl` supports, stored and
 * used in its canonical form (`en-us` → `en-US`). Put `@ToCanonicalLocale()` beside it so the
 * value is canonical after the ValidationPipe; an invalid value stays as sent and is refused.
 */
export const IsIntlLocale =
  (options?: ValidationOptions) => (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isIntlLocale',
      target: object.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => canonicalLocale(value) !== undefined,
        defaultMessage: () =>
          `must be a BCP 47 language tag that Intl supports, such as ru-RU, en-US or de-DE ` +
          `(at most ${MAX_LOCALE_LENGTH} characters)`,
      },
    });

export const ToCanonicalLocale = () =>
  Transform(({ value }: { value: unknown }) => canonicalLocale(value) ?? value);

/** An ISO 4217 currency code that `Intl` knows, upper case (`Intl.supportedValuesOf`). */
export const IsCurrencyCode =
  (options?: ValidationOptions) => (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isCurrencyCode',
      target: object.constructor,
      propertyName,
      options,
      validator: {
        validate: isSupportedCurrency,
        defaultMessage: () => 'must be an ISO 4217 currency code in upper case, such as RUB or USD',
      },
    });
