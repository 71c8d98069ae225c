import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { linkTemplateError } from '../link-templates';
import { phaseErrors, tierErrors, type ProgramPhase, type ProgramTier } from '../program';

/** `scheme://host[:port]` exactly as a browser sends it in `Origin`: no path, slash or query. */
export function isExactOrigin(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

const HOST =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
export function isHostName(value: unknown): boolean {
  return typeof value === 'string' && HOST.test(value);
}

export const TEMPLATE_TARGET_TYPES = ['offer', 'shop', 'partner', 'storefront'] as const;

function templateError(key: string, value: unknown): string | undefined {
  if (!(TEMPLATE_TARGET_TYPES as readonly string[]).includes(key)) {
    return `key "${key}" must be one of ${TEMPLATE_TARGET_TYPES.join(', ')}`;
  }
  if (typeof value !== 'string') return `"${key}" must be a URL template with {id}`;
  const error = linkTemplateError(value);
  return error && `"${key}" ${error}`;
}

function decorator(
  name: string,
  validate: (value: unknown) => boolean,
  message: (args: ValidationArguments) => string,
  options?: ValidationOptions,
) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name,
      target: object.constructor,
      propertyName,
      options,
      validator: { validate, defaultMessage: message },
    });
}

export const IsExactOrigin = (options?: ValidationOptions) =>
  decorator(
    'isExactOrigin',
    isExactOrigin,
    () => 'must be an exact origin such as https://shop.example (no path, trailing slash or query)',
    options,
  );

export const IsHostName = (options?: ValidationOptions) =>
  decorator(
    'isHostName',
    isHostName,
    () => 'must be a lower-case host name such as shop.example',
    options,
  );

export const IsLinkTemplates = (options?: ValidationOptions) =>
  decorator(
    'isLinkTemplates',
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.entries(value).every(([k, v]) => templateError(k, v) === undefined),
    (args) => {
      const entries = Object.entries((args.value as Record<string, unknown>) ?? {});
      const first = entries.map(([k, v]) => templateError(k, v)).find(Boolean);
      return first ?? 'must be an object mapping target types to URL templates with {id}';
    },
    options,
  );

/** Chain order, one amount kind per tier, at most 20 uplines, percentages ≤ 100 % in total. */
export const IsValidTierList = (options?: ValidationOptions) =>
  decorator(
    'isValidTierList',
    (value) => Array.isArray(value) && tierErrors(value as Partial<ProgramTier>[]).length === 0,
    (args) =>
      Array.isArray(args.value)
        ? tierErrors(args.value as Partial<ProgramTier>[], 'tiers')
            .map((e) => `${e.field}: ${e.message}`)
            .join('; ')
        : 'must be an array',
    options,
  );

/** The phase rules of docs/money.md §2 ("Phases"), each phase's tiers included. */
export const IsValidPhaseList = (options?: ValidationOptions) =>
  decorator(
    'isValidPhaseList',
    (value) => Array.isArray(value) && phaseErrors(value as Partial<ProgramPhase>[]).length === 0,
    (args) =>
      Array.isArray(args.value)
        ? phaseErrors(args.value as Partial<ProgramPhase>[], 'phases')
            .map((e) => `${e.field}: ${e.message}`)
            .join('; ')
        : 'must be an array',
    options,
  );

/** The property may not be given together with `other` (one of two ways to say the same thing). */
export const IsAbsentWith =
  (other: string, options?: ValidationOptions) => (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isAbsentWith',
      target: object.constructor,
      propertyName,
      options,
      validator: {
        validate: (_value: unknown, args: ValidationArguments) =>
          (args.object as Record<string, unknown>)[other] === undefined,
        defaultMessage: () => `cannot be given together with ${other}`,
      },
    });
