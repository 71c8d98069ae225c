import { applyDecorators } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiQuery } from '@nestjs/swagger';
import { BONUS_STATUSES } from '../bonuses/bonus.entity';
import type { StaffRole } from '../common/access/actor';
import {
  ApiFormBody,
  ApiHtmlPages,
  ApiRedirect,
  type SchemaObject,
} from '../common/http/html-openapi';
import { EVENT_TYPES } from '../outbox/event-types';
import {
  ADMIN_SESSION,
  consoleCsvDocs,
  CSRF,
  LANG,
  refusedOn,
  staffOf,
  STRING,
} from './org-page.openapi';

/**
 * OpenAPI of the admin pages (the area controllers), one entry per handler, so each controller
 * carries each route's documentation in one line (`@OrgDocs.bonusQueue()`) and this file reads as
 * the route table of `/org`. Pages and actions re-check the role the Admin API would need; without
 * a session every one of them redirects to the sign-in page. The success status of a form post
 * is the `@HttpCode` on its handler (303, or 200 where it answers a page): the swagger plugin
 * reads it there, and would otherwise list a POST's 201.
 */

const PAGE: SchemaObject = { type: 'integer', minimum: 1, description: 'Default 1' };
const LINES: SchemaObject = { type: 'string', description: 'One per line' };
const BONUS_BACK: SchemaObject = {
  type: 'string',
  description: "The bonus queue's filters and page as a query string, kept by the redirect",
};
const SLUG: SchemaObject = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{1,62}$' };

const REFUSED = refusedOn();

/** `[status, description]` pages, a later one replacing an earlier one of the same status. */
function pages(...lists: [number, string][][]): [number, string][] {
  return [...new Map(lists.flat()).entries()];
}

/**
 * A page of an organisation (`GET /org/{slug}/…`), for `role` or higher; `notice` and `error`
 * show the outcome of the form post that redirected here, `query` adds the page's own.
 */
function AdminPage(
  role: StaffRole,
  summary: string,
  query: Record<string, SchemaObject> = {},
  extra: [number, string][] = [],
) {
  const params = { ...query, notice: STRING, error: STRING };
  return applyDecorators(
    ApiOperation({ summary, description: staffOf(role) }),
    ...Object.entries(params).map(([name, schema]) =>
      ApiQuery({ name, required: false, schema, description: schema.description }),
    ),
    ApiHtmlPages(...pages([[200, 'The page']], REFUSED, extra)),
    ApiRedirect(303, 'No session: to the sign-in page', '/org/sign-in'),
  );
}

/**
 * A form post of an organisation's page: `_csrf` plus `fields`, for `role` or higher. It
 * redirects back to `page` with `notice` or `error` (post/redirect/get), or, with `shows`,
 * answers that page itself (with a secret shown once).
 */
function AdminAction(
  role: StaffRole,
  summary: string,
  page: string,
  fields: Record<string, SchemaObject> = {},
  required: string[] = [],
  shows?: string,
) {
  return applyDecorators(
    ApiOperation({ summary, description: staffOf(role) }),
    ApiFormBody({ _csrf: CSRF, ...fields }, ['_csrf', ...required]),
    ApiRedirect(
      303,
      'Back to the page with `notice` or `error`; without a session, to the sign-in page',
      `/org/{slug}/${page}?notice=…`,
    ),
    ApiHtmlPages(...pages(shows ? [[200, shows]] : [], REFUSED)),
  );
}

export const OrgDocs = {
  signInForm: () =>
    applyDecorators(
      ApiOperation({
        summary: 'The sign-in form',
        description: 'Takes a staff token (`stf_…`) or the platform admin token.',
      }),
      ApiQuery({
        name: 'error',
        required: false,
        schema: STRING,
        description: 'Set after a refused token: the form says so',
      }),
      ApiHtmlPages([200, 'The sign-in form']),
    ),

  signIn: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Signs in with a token',
        description:
          'A staff token or the platform admin token starts a session: cookie `svc_admin` ' +
          '(path `/org`, 12 hours), then a redirect to `/org`. Any other token redirects back ' +
          'to `/org/sign-in?error=1`.',
      }),
      ApiFormBody(
        {
          token: { type: 'string', description: '`stf_…` or ADMIN_TOKEN' },
          _csrf: { type: 'string', description: "The sign-in form's pre-session token" },
        },
        ['token', '_csrf'],
      ),
      ApiRedirect(303, 'Signed in (`Set-Cookie: svc_admin`), or refused', '/org'),
      ApiHtmlPages([403, "The form expired or was not sent from this browser's sign-in page"]),
    ),

  signOut: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Signs out',
        description:
          'Deletes the session on the server and clears the cookie; a post without the ' +
          "session's `_csrf` is refused.",
      }),
      ApiCookieAuth(ADMIN_SESSION),
      ApiFormBody({ _csrf: CSRF }, ['_csrf']),
      ApiRedirect(303, 'Signed out', '/org/sign-in'),
      ApiHtmlPages([403, "A session's form without its `_csrf`: the session goes on"]),
    ),

  home: () =>
    applyDecorators(
      ApiOperation({
        summary: 'The organisation chooser',
        description:
          "Staff are redirected to their organisation's bonuses; the platform admin picks an " +
          'organisation by slug (`?slug=` redirects to its integration page).',
      }),
      ApiCookieAuth(ADMIN_SESSION),
      ApiQuery({ name: 'slug', required: false, schema: SLUG }),
      ApiHtmlPages([200, 'The chooser (the platform admin)']),
      ApiRedirect(
        303,
        "To the sign-in page without a session, else to an organisation's page",
        '/org/sign-in, /org/{slug}/bonuses or /org/{slug}/integration',
      ),
    ),

  integration: () =>
    AdminPage(
      'viewer',
      'Integration: origins, link domains, tenant keys, the webhook and its recent deliveries',
      { lang: LANG },
    ),

  saveSettings: () =>
    AdminAction(
      'owner',
      'Saves the allowed origins, the link domains and how the widgets are gated',
      'integration',
      {
        allowed_origins: LINES,
        link_domains: LINES,
        embed_auth: { type: 'string', enum: ['origin', 'token'] },
      },
    ),

  createKey: () =>
    AdminAction(
      'owner',
      'Creates a tenant key',
      'integration',
      { name: { type: 'string', maxLength: 200 } },
      [],
      'The integration page with the new key, shown once',
    ),

  revokeKey: () => AdminAction('owner', 'Revokes a tenant key', 'integration'),

  saveWebhook: () =>
    AdminAction(
      'owner',
      'Saves the webhook endpoint',
      'integration',
      {
        url: { type: 'string', format: 'uri', maxLength: 2048 },
        events: {
          type: 'array',
          items: { type: 'string', enum: [...EVENT_TYPES] },
          description: 'Repeated, one field per event type',
        },
        enabled: { type: 'string', enum: ['on'], description: 'A checkbox: present is enabled' },
      },
      ['url'],
      'The integration page, with the signing secret shown once when the endpoint is new',
    ),

  rotateSecret: () =>
    AdminAction(
      'owner',
      'Rotates the webhook signing secret',
      'integration',
      {},
      [],
      'The integration page with the new secret, shown once (the previous one signs for 24 hours)',
    ),

  testWebhook: () => AdminAction('owner', 'Sends a test event to the webhook', 'integration'),

  eventDetail: () =>
    AdminPage(
      'viewer',
      'A webhook event: its payload, delivery status and attempts',
      { lang: LANG },
      refusedOn('event'),
    ),

  replay: () =>
    AdminAction('owner', 'Replays a webhook event: one fresh attempt', 'webhook-events/{event_id}'),

  auditLog: () =>
    AdminPage('viewer', 'The audit log, 50 entries a page', {
      action: {
        type: 'string',
        pattern: '^[a-z_]+\\.[a-z_]+$',
        description: 'Only this action, e.g. `webhook.dead_lettered`',
      },
      page: PAGE,
      lang: LANG,
    }),

  bonusQueue: () =>
    AdminPage('viewer', 'Bonuses: totals by status, the filtered list, approval and rejection', {
      status: { type: 'string', enum: [...BONUS_STATUSES] },
      user_id: { type: 'string', description: "The partner's service user id (`usr_…`)" },
      created_from: { type: 'string', format: 'date', description: 'Created at or after' },
      created_to: { type: 'string', format: 'date', description: 'Created before' },
      review: { type: 'string', enum: ['flagged', 'cleared'] },
      page: PAGE,
      lang: LANG,
      approved: { type: 'string', description: 'An action done: the bonus approved' },
      rejected: { type: 'string', description: 'An action done: the bonus rejected' },
      done: { type: 'string', description: 'A bulk action done: `approve:3`, `reject:2`' },
      stale: { type: 'string', description: 'Bonus ids a bulk action found no longer pending' },
    }),

  bonusesCsv: () =>
    consoleCsvDocs(
      "The bonuses export with the bonus queue's filters, streamed",
      {
        status: { type: 'string', enum: [...BONUS_STATUSES] },
        review: { type: 'string', enum: ['flagged', 'cleared'] },
        user_id: { type: 'string', description: 'The partner: mbr_… or usr_…' },
        created_from: { type: 'string', description: 'An instant or a day (inclusive)' },
        created_to: { type: 'string', description: 'An instant or a day (exclusive)' },
      },
      REFUSED,
      'RFC 4180 CSV, UTF-8, the columns of the Admin API export',
    ),

  approve: () =>
    AdminAction('manager', 'Approves a pending bonus', 'bonuses', { back: BONUS_BACK }),

  reject: () =>
    AdminAction('manager', 'Rejects a pending bonus (a reason is needed)', 'bonuses', {
      reason: {
        type: 'string',
        maxLength: 500,
        description: 'Or `reason_{bonus_id}`, the field the bonuses page names',
      },
      back: BONUS_BACK,
    }),

  bulk: () =>
    AdminAction(
      'manager',
      'Approves or rejects up to 100 pending bonuses',
      'bonuses',
      {
        ids: {
          type: 'array',
          items: { type: 'string' },
          maxItems: 100,
          description: 'Repeated, one field per bonus id',
        },
        action: { type: 'string', enum: ['approve', 'reject'], description: 'Default approve' },
        bulk_reason: { type: 'string', maxLength: 500, description: 'Needed to reject' },
        back: BONUS_BACK,
      },
      ['ids'],
    ),
};
