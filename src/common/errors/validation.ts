import { ValidationError } from '@nestjs/common';
import { FieldError, ValidationFailedError } from './domain-error';

/** Flattens class-validator's nested errors into `{field: "contact.email", message}` rows. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([rule, message]) => ({
      field,
      message:
        rule === 'whitelistValidation'
          ? 'is not a known field'
          : stripProperty(message, error.property),
    }));
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

function stripProperty(message: string, property: string): string {
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}

export function validationExceptionFactory(errors: ValidationError[]): ValidationFailedError {
  return new ValidationFailedError(flattenValidationErrors(errors));
}
