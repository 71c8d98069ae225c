import { applyDecorators } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiProduces, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { ADMIN_SESSION } from '../admin-pages/admin-pages.openapi';
import {
  ApiFormBody,
  ApiHtmlPages,
  ApiRedirect,
  type SchemaObject,
} from '../common/http/html-openapi';

/**
 * OpenAPI of the console's record pages (`/org/{slug}/conversions…`, `/org/{slug}/leads…`) and of
 * the ban form on a partner's page, as console.openapi.ts documents the others.
 */

const STRING: SchemaObject = { type: 'string' };
const DAY: SchemaObject = { type: 'string', format: 'date', description: 'YYYY-MM-DD (UTC)' };
const MEMBER: SchemaObject = { type: 'string', description: 'The partner: mbr_… or usr_…' };
const REFUSED: [number, string][] = [
  [403, 'Another organisation, a lower role, or (on a form post) a missing or stale `_csrf`'],
  [404, 'No such organisation (the platform admin), or no such conversion'],
];
const CSRF: SchemaObject = { type: 'string', description: "The session's CSRF token" };

function filters(status: string[], more: Record<string, SchemaObject> = {}) {
  return {
    status: { type: 'string', enum: status } as SchemaObject,
    user_id: MEMBER,
    from: DAY,
    to: DAY,
    ...more,
  };
}

function page(summary: string, query: Record<string, SchemaObject>) {
  return applyDecorators(
    ApiOperation({
      summary,
      description: 'Staff of this organisation (viewer or higher), or the platform admin.',
    }),
    ApiCookieAuth(ADMIN_SESSION),
    ...Object.entries<SchemaObject>({
      ...query,
      page: { type: 'integer', minimum: 1 },
      notice: STRING,
      error: STRING,
      lang: { type: 'string', enum: ['ru', 'en'] },
    }).map(([name, schema]) =>
      ApiQuery({ name, required: false, schema, description: schema.description }),
    ),
    ApiHtmlPages([200, 'The page'], ...REFUSED),
    ApiRedirect(303, 'No session: to the sign-in page', '/org/sign-in'),
  );
}

function csv(summary: string, query: Record<string, SchemaObject>) {
  return applyDecorators(
    ApiOperation({
      summary,
      description: 'Staff of this organisation (viewer or higher), or the platform admin.',
    }),
    ApiCookieAuth(ADMIN_SESSION),
    ...Object.entries(query).map(([name, schema]) => ApiQuery({ name, required: false, schema })),
    ApiProduces('text/csv'),
    ApiResponse({
      status: 200,
      description: 'RFC 4180 CSV, UTF-8, the columns of the Admin API export',
      content: { 'text/csv': { schema: { type: 'string' } } },
    }),
    ApiResponse({ status: 400, description: 'A filter the list refuses' }),
    ApiHtmlPages(...REFUSED),
  );
}

function action(summary: string, fields: Record<string, SchemaObject>, back: string) {
  return applyDecorators(
    ApiOperation({
      summary,
      description:
        'Staff of this organisation with the manager role or higher, or the platform admin. ' +
        'Redirects back with `notice` or `error`.',
    }),
    ApiCookieAuth(ADMIN_SESSION),
    ApiFormBody({ _csrf: CSRF, ...fields }, [
      '_csrf',
      ...['status', 'reason'].filter((name) => name in fields).slice(0, 1),
    ]),
    ApiRedirect(303, 'Back to the page', back),
    ApiHtmlPages(...REFUSED),
  );
}

const CONVERSION_FILTERS = filters(['registered', 'reversed']);
const LEAD_FILTERS = filters(['new', 'processed', 'converted', 'rejected'], {
  source: { type: 'string', enum: ['federation', 'lead_form', 'referral_link', 'promo_code'] },
});

export const RecordDocs = {
  conversions: () =>
    page('The conversions: status, partner, period; newest first', CONVERSION_FILTERS),
  conversion: () =>
    applyDecorators(
      ApiOperation({
        summary: 'A conversion: its order, partner, customer and cascade; reversal',
        description: 'Staff of this organisation (viewer or higher), or the platform admin.',
      }),
      ApiCookieAuth(ADMIN_SESSION),
      ...['reversed', 'error', 'lang'].map((name) =>
        ApiQuery({ name, required: false, schema: STRING }),
      ),
      ApiHtmlPages([200, 'The page'], ...REFUSED),
      ApiRedirect(303, 'No session: to the sign-in page', '/org/sign-in'),
    ),
  conversionsCsv: () =>
    csv("The conversions export with the page's filters, streamed", CONVERSION_FILTERS),
  reverse: () =>
    action(
      'Reverses the conversion (its pending and approved bonuses are written off)',
      {
        reason: { type: 'string', minLength: 1, maxLength: 500 },
        back: {
          type: 'string',
          description:
            "The list's query, kept by the redirect; `detail`: back to the conversion's page",
        },
      },
      '/org/{slug}/conversions',
    ),
  leadStatus: () =>
    action(
      "Changes the lead's status (`processed` or `rejected`; rejecting rejects its pending lead bonuses)",
      {
        status: { type: 'string', enum: ['processed', 'rejected'] },
        reason: { type: 'string', maxLength: 500 },
        back: { type: 'string', description: "The list's query, kept by the redirect" },
      },
      '/org/{slug}/leads',
    ),
  bonusesCsv: () =>
    csv("The bonuses export with the bonus queue's filters, streamed", {
      status: {
        type: 'string',
        enum: ['pending', 'approved', 'paid', 'rejected', 'reversed'],
      },
      review: { type: 'string', enum: ['flagged', 'cleared'] },
      user_id: MEMBER,
      created_from: { type: 'string', description: 'An instant or a day (inclusive)' },
      created_to: { type: 'string', description: 'An instant or a day (exclusive)' },
    }),
  leads: () => page('The leads: status, source, partner, period; newest first', LEAD_FILTERS),
  leadsCsv: () => csv("The leads export with the page's filters, streamed", LEAD_FILTERS),
  unban: () =>
    action('Lifts the ban of the partner (docs/fraud.md)', {}, '/org/{slug}/partners/{user_id}'),
  ban: () =>
    action(
      'Bans the partner (docs/fraud.md)',
      { reason: { type: 'string', minLength: 1, maxLength: 500 } },
      '/org/{slug}/partners/{user_id}',
    ),
};
