import { applyDecorators } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiProduces, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { ADMIN_SESSION } from '../admin-pages/admin-pages.openapi';
import type { StaffRole } from '../access/principal';
import {
  ApiFormBody,
  ApiHtmlPages,
  ApiRedirect,
  type SchemaObject,
} from '../common/http/html-openapi';

/**
 * OpenAPI of the console's pages (`/org/{slug}`, `/org/{slug}/partners…`), as admin-pages.openapi
 * documents the other areas: each page re-checks the role the Admin API would need, and without a
 * session redirects to the sign-in page.
 */

const STRING: SchemaObject = { type: 'string' };
const DAY: SchemaObject = { type: 'string', format: 'date', description: 'YYYY-MM-DD (UTC)' };
const LANG: SchemaObject = {
  type: 'string',
  enum: ['ru', 'en'],
  description: 'The language of the pages, remembered for the session',
};
const REFUSED: [number, string][] = [
  [403, 'Another organisation, a lower role, or (on a form post) a missing or stale `_csrf`'],
  [404, 'No such organisation (the platform admin), or no such partner'],
];

function ConsolePage(role: StaffRole, summary: string, query: Record<string, SchemaObject> = {}) {
  return applyDecorators(
    ApiOperation({
      summary,
      description: `Staff of this organisation with the ${role} role or higher, or the platform admin.`,
    }),
    ApiCookieAuth(ADMIN_SESSION),
    ...Object.entries({ ...query, lang: LANG }).map(([name, schema]) =>
      ApiQuery({ name, required: false, schema, description: schema.description }),
    ),
    ApiHtmlPages([200, 'The page'], ...REFUSED),
    ApiRedirect(303, 'No session: to the sign-in page', '/org/sign-in'),
  );
}

const LIST_QUERY: Record<string, SchemaObject> = {
  q: { type: 'string', description: 'Name, email or external id (part of it)' },
  sort: { type: 'string', enum: ['joined', 'name', 'leads', 'clicks', 'downline'] },
  page: { type: 'integer', minimum: 1 },
};

export const ConsoleDocs = {
  overview: () =>
    ConsolePage('viewer', 'The program overview: KPIs, daily charts, funnel, top partners', {
      from: DAY,
      to: DAY,
      error: STRING,
    }),
  partners: () =>
    ConsolePage('viewer', 'The partners: search, sort, pages', {
      ...LIST_QUERY,
      notice: STRING,
      error: STRING,
    }),
  partnersCsv: () =>
    applyDecorators(
      ApiOperation({
        summary: "The partners list as CSV (the page's search and sort), streamed",
        description: 'Staff of this organisation (viewer or higher), or the platform admin.',
      }),
      ApiCookieAuth(ADMIN_SESSION),
      ...Object.entries({ q: LIST_QUERY.q, sort: LIST_QUERY.sort }).map(([name, schema]) =>
        ApiQuery({ name, required: false, schema }),
      ),
      ApiProduces('text/csv'),
      ApiResponse({
        status: 200,
        description: 'RFC 4180 CSV, UTF-8',
        content: { 'text/csv': { schema: { type: 'string' } } },
      }),
      ApiHtmlPages(...REFUSED),
      ApiRedirect(303, 'No session: to the sign-in page', '/org/sign-in'),
    ),
  partner: () => ConsolePage('viewer', "A partner's page", { notice: STRING, error: STRING }),
  setActive: (active: boolean) =>
    applyDecorators(
      ApiOperation({
        summary: active ? 'Activates the partner' : 'Deactivates the partner',
        description:
          'Staff of this organisation with the manager role or higher, or the platform admin. ' +
          "Redirects back to the partner's page with `notice` or `error`.",
      }),
      ApiCookieAuth(ADMIN_SESSION),
      ApiFormBody({ _csrf: { type: 'string', description: "The session's CSRF token" } }, [
        '_csrf',
      ]),
      ApiRedirect(303, "Back to the partner's page", '/org/{slug}/partners/{user_id}'),
      ApiHtmlPages(...REFUSED),
    ),
};
