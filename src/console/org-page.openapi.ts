import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { CredentialScheme } from '../common/access/access.decorators';
import type { StaffRole } from '../common/access/actor';
import {
  ApiFormBody,
  ApiHtmlPages,
  ApiRedirect,
  type SchemaObject,
} from '../common/http/html-openapi';

/**
 * The OpenAPI shapes of an organisation's pages, CSV links and form posts, which the console's
 * console.openapi.ts and payouts-program.openapi.ts and admin-pages.openapi.ts fill in: each page
 * re-checks the role the Admin API would need, and without a session redirects to the sign-in page.
 */

/**
 * The security scheme of the admin pages' session cookie (CREDENTIAL_SCHEMES): an organisation's
 * page gets it from its policy (`@OrgView`, `@OrgAction`), sign-out and `/org` name it here.
 */
export const ADMIN_SESSION: CredentialScheme = 'admin-session';

export const STRING: SchemaObject = { type: 'string' };
export const DAY: SchemaObject = {
  type: 'string',
  format: 'date',
  description: 'YYYY-MM-DD (UTC)',
};
export const CSRF: SchemaObject = { type: 'string', description: "The session's CSRF token" };
/** `?lang=`, which every page of an organisation takes. */
export const LANG: SchemaObject = {
  type: 'string',
  enum: ['ru', 'en'],
  description: 'The language of the pages, remembered for the session',
};

/**
 * The refusals every page and form of an organisation shares: 403, and 404 for no such
 * organisation or, where the path names one, no such `missing` (`partner`, `payout or run`).
 */
export function refusedOn(missing?: string): [number, string][] {
  const organisation = 'No such organisation (the platform admin)';
  return [
    [403, 'Another organisation, a lower role, or (on a form post) a missing or stale `_csrf`'],
    [404, missing ? `${organisation}, or no such ${missing}` : organisation],
  ];
}

/** Who may: staff of the organisation with `role` or higher, or the platform admin. */
export const staffOf = (role: StaffRole) =>
  `Staff of this organisation with the ${role} role or higher, or the platform admin.`;

const queries = (query: Record<string, SchemaObject>) =>
  Object.entries(query).map(([name, schema]) =>
    ApiQuery({ name, required: false, schema, description: schema.description }),
  );

/** A page (GET) with its query parameters and the refusals (`refused`) of its area. */
export function consolePageDocs(
  summary: string,
  query: Record<string, SchemaObject>,
  refused: [number, string][],
  role: StaffRole = 'viewer',
) {
  return applyDecorators(
    ApiOperation({ summary, description: staffOf(role) }),
    ...queries(query),
    ApiHtmlPages([200, 'The page'], ...refused),
    ApiRedirect(303, 'No session: to the sign-in page', '/org/sign-in'),
  );
}

const REFUSED_FILTER: [number, string] = [400, 'A filter the list refuses: a page that says which'];

/** A CSV download (viewer), `columns` saying what the 200 holds; `filtered`: it may answer 400. */
export function consoleCsvDocs(
  summary: string,
  query: Record<string, SchemaObject>,
  refused: [number, string][],
  columns: string,
  filtered = true,
) {
  return applyDecorators(
    ApiOperation({ summary, description: staffOf('viewer') }),
    ...queries(query),
    ApiProduces('text/csv'),
    ApiResponse({
      status: 200,
      description: columns,
      content: { 'text/csv': { schema: { type: 'string' } } },
    }),
    ApiHtmlPages(...(filtered ? [REFUSED_FILTER] : []), ...refused),
    ApiRedirect(303, 'No session: to the sign-in page', '/org/sign-in'),
  );
}

/** A form post (manager) that redirects to `back`, as `redirect` says, or answers `pages`. */
export function consoleActionDocs(action: {
  summary: string;
  description: string;
  fields: Record<string, SchemaObject>;
  required: string[];
  redirect: string;
  back: string;
  refused: [number, string][];
  pages?: [number, string][];
}) {
  return applyDecorators(
    ApiOperation({
      summary: action.summary,
      description: `${staffOf('manager')} ${action.description}`,
    }),
    ApiFormBody({ _csrf: CSRF, ...action.fields }, ['_csrf', ...action.required]),
    ApiRedirect(303, action.redirect, action.back),
    ApiHtmlPages(...(action.pages ?? []), ...action.refused),
  );
}
