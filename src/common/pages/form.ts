import { createParamDecorator, type ExecutionContext, ValidationPipe } from '@nestjs/common';
import { Expose, Transform } from 'class-transformer';
import type { Request } from 'express';
import type { FieldError } from '../errors/domain-error';
import { validationExceptionFactory } from '../errors/validation';
import { PageException, type PageResult } from './page';

export interface FormOptions {
  /**
   * The page (or redirect) that answers a refused form, in place of the ValidationFailedError that
   * PageFilter would turn into post/redirect/get or a plain error page.
   */
  invalid?: (errors: FieldError[]) => PageResult;
}

/**
 * The pipe of page forms: the JSON API's ValidationPipe (class-validator DTOs, `transform`,
 * `whitelist`, the same `400 validation_failed` with its fields), except that fields the DTO does
 * not name are dropped rather than refused. A page's form may carry other buttons' fields (the
 * bonuses page posts its whole list whichever button is pressed), and every form carries `_csrf`,
 * which the page's guard checks, not the DTO.
 */
function formPipe({ invalid }: FormOptions): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: false,
    transform: true,
    validateCustomDecorators: true,
    exceptionFactory: (errors) => {
      const refusal = validationExceptionFactory(errors);
      return invalid ? new PageException(invalid(refusal.errors ?? [])) : refusal;
    },
  });
}

const DEFAULT_PIPE = formPipe({});

const formBody = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<Request>().body,
);

const formQuery = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<Request>().query,
);

/**
 * The URL-encoded form body (form-body.ts parsed it; an empty POST is `{}`), validated as the
 * parameter's DTO class. A refusal is a ValidationFailedError (PageFilter sends a page post back
 * with it, see `@Back()`), or the page `options.invalid` makes of it.
 */
export const FormBody = (options?: FormOptions): ParameterDecorator =>
  formBody(options ? formPipe(options) : DEFAULT_PIPE);

/** A page's query, validated as the parameter's DTO class like FormBody. */
export const FormQuery = (options?: FormOptions): ParameterDecorator =>
  formQuery(options ? formPipe(options) : DEFAULT_PIPE);

const trimmed = (value: unknown) => (typeof value === 'string' ? value.trim() : value);

/** A text field, trimmed; an empty one is absent. */
export function FormText(): PropertyDecorator {
  return Transform(({ value }) => {
    const text = trimmed(value);
    return text === '' ? undefined : text;
  });
}

/** A textarea of one value per line: trimmed lines, empty ones dropped (absent: none). */
export function FormLines(): PropertyDecorator {
  const lines = Transform(({ value }) =>
    typeof value === 'string'
      ? value
          .split(/\r?\n/)
          .map((line) => line.trim())
          .filter(Boolean)
      : value === undefined
        ? []
        : value,
  );
  return (target, key) => {
    Expose()(target, key);
    lines(target, key);
  };
}

/** A field that may repeat (checkboxes of one name): always a list (absent: empty). */
export function FormList(): PropertyDecorator {
  const list = Transform(({ value }) =>
    value === undefined ? [] : Array.isArray(value) ? value : [value],
  );
  return (target, key) => {
    Expose()(target, key);
    list(target, key);
  };
}

/** A checkbox: `on` when ticked, absent when not. */
export function FormCheckbox(): PropertyDecorator {
  const checked = Transform(({ value }) => value === 'on');
  return (target, key) => {
    Expose()(target, key);
    checked(target, key);
  };
}
