import {
  registerDecorator,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';

/**
 * An instant in a query (`created_from`, `created_to`): a day, `2026-11-01` (its 00:00 UTC), or a
 * date and time, `2026-11-01T10:00`, `…T10:00:30`, `…T10:00:30.125`, with `Z` or an offset
 * `±HH:MM` (none: UTC, whatever the server's time zone). Seconds have at most three decimals:
 * every time the API returns is to the millisecond, so a bound can always be one of them. Years
 * 1000–9999. Anything else (week or ordinal dates, `24:00`, `2026-02-30`, a space for `T`) is
 * not an instant.
 */
const INSTANT =
  /^([1-9]\d{3})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

export function parseInstant(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = INSTANT.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const [oh, om] = zone.slice(1).split(':').map(Number);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  date.setUTCHours(hour, minute - offsetMinutes, second, Number(frac.padEnd(3, '0')));
  return date;
}

const FORMS = 'YYYY-MM-DD (00:00 UTC) or YYYY-MM-DDTHH:MM[:SS[.sss]] with Z or ±HH:MM (none: UTC)';

/** The field is an instant `parseInstant` reads. */
export const IsInstant = (options?: ValidationOptions) => (object: object, propertyName: string) =>
  registerDecorator({
    name: 'isInstant',
    target: object.constructor,
    propertyName,
    options,
    validator: {
      validate: (value: unknown) => parseInstant(value) !== undefined,
      defaultMessage: () => `must be an instant: ${FORMS}`,
    },
  });

/**
 * The field, an instant, is not before the instant in `property` (when both are instants; each
 * field's own rule reports a malformed one). Equal is allowed: `[t, t)` is empty, not wrong.
 */
export const IsNotBefore = (property: string, options?: ValidationOptions) =>
  function (object: object, propertyName: string) {
    registerDecorator({
      name: 'isNotBefore',
      target: object.constructor,
      propertyName,
      constraints: [property],
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => {
          const end = parseInstant(value);
          const start = parseInstant((args.object as Record<string, unknown>)[property]);
          return !end || !start || end.getTime() >= start.getTime();
        },
        defaultMessage: () => `must not be before ${property}`,
      },
    });
  };
