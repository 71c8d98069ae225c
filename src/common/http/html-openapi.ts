import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiProduces,
  ApiResponse,
  type OpenAPIObject,
} from '@nestjs/swagger';

/** An OpenAPI schema (not a `$ref`), by the type @nestjs/swagger exports from its root. */
export type SchemaObject = Exclude<
  NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string],
  { $ref: string }
>;

/**
 * OpenAPI for the routes that answer browsers rather than API clients (the popup, short links,
 * the admin pages, the demo): their HTML pages, their redirects and their plain form posts, so the
 * document lists every route the service serves (docs/architecture.md, "The OpenAPI document").
 */

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** Each `[status, description]` answers an HTML page (`text/html`, a string). */
export function ApiHtmlPages(...pages: [number, string][]) {
  return applyDecorators(
    ApiProduces('text/html'),
    ...pages.map(([status, description]) =>
      ApiResponse({
        status,
        description,
        content: { 'text/html': { schema: { type: 'string' } } },
      }),
    ),
  );
}

/** A redirect (`302`, `303`) to `location`, described. */
export function ApiRedirect(status: 302 | 303, description: string, location: string) {
  return ApiResponse({
    status,
    description,
    headers: { Location: { description: location, schema: { type: 'string' } } },
  });
}

/** A plain HTML form post: `application/x-www-form-urlencoded` with these fields. */
export function ApiFormBody(properties: Record<string, SchemaObject>, required: string[] = []) {
  return applyDecorators(
    ApiConsumes(FORM_MEDIA_TYPE),
    ApiBody({ schema: { type: 'object', properties, ...(required.length ? { required } : {}) } }),
  );
}
