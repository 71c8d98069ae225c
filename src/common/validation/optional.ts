import { ValidateIf, type ValidationOptions } from 'class-validator';

/**
 * An optional field: it may be left out, and then it is not validated. Unlike class-validator's
 * `@IsOptional()`, which skips `null` as well (and so lets `null` through to the services, where
 * a `string | undefined` field turns out to hold `null`), a `null` here is validated like any
 * other value and so refused with `400 validation_failed`. The one rule for every request DTO
 * (docs/architecture.md, "Decisions": null is never "absent"); eslint.config.mjs forbids
 * `IsOptional` so that it stays the one rule.
 */
export const Optional = (options?: ValidationOptions): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined, options);
