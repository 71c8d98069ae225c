import { DECORATORS } from '@nestjs/swagger';
import { ValidateIf, type ValidationOptions } from 'class-validator';

/**
 * An optional field: it may be left out, and then it is not validated. Unlike class-validator's
 * `@IsOptional()`, which skips `null` as well (and so lets `null` through to the services, where
 * a `string | undefined` field turns out to hold `null`), a `null` here is validated like any
 * other value and so refused with `400 validation_failed`. The one rule for every request DTO
 * (docs/architecture.md, "Decisions": null is never "absent"); eslint.config.mjs forbids
 * `IsOptional` so that it stays the one rule.
 *
 * Not required in the OpenAPI document either: the compiler plugin takes a field with a default
 * (`page: number = 1`) for a required one, and a generated client would then have to send it.
 * Only `required` is set, under what the plugin (or an `@ApiProperty`) says of the field.
 */
export const Optional =
  (options?: ValidationOptions): PropertyDecorator =>
  (target, key) => {
    ValidateIf((_object: object, value: unknown) => value !== undefined, options)(target, key);
    const declared = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, target, key) ??
      {}) as object;
    Reflect.defineMetadata(
      DECORATORS.API_MODEL_PROPERTIES,
      { ...declared, required: false },
      target,
      key,
    );
  };
