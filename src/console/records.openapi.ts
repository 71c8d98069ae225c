import {
  consoleActionDocs,
  consoleCsvDocs,
  consolePageDocs,
  DAY,
  STRING,
} from '../admin-pages/org-page.openapi';
import type { SchemaObject } from '../common/http/html-openapi';

/**
 * OpenAPI of the console's record pages (`/org/{slug}/conversions…`, `/org/{slug}/leads…`) and of
 * the ban form on a partner's page, as console.openapi.ts documents the others.
 */

const MEMBER: SchemaObject = { type: 'string', description: 'The partner: mbr_… or usr_…' };
const REFUSED: [number, string][] = [
  [403, 'Another organisation, a lower role, or (on a form post) a missing or stale `_csrf`'],
  [404, 'No such organisation (the platform admin), or no such conversion'],
];

function filters(status: string[], more: Record<string, SchemaObject> = {}) {
  return {
    status: { type: 'string', enum: status } as SchemaObject,
    user_id: MEMBER,
    from: DAY,
    to: DAY,
    ...more,
  };
}

const page = (summary: string, query: Record<string, SchemaObject>) =>
  consolePageDocs(
    summary,
    {
      ...query,
      page: { type: 'integer', minimum: 1 },
      notice: STRING,
      error: STRING,
      lang: { type: 'string', enum: ['ru', 'en'] },
    },
    REFUSED,
  );

const csv = (summary: string, query: Record<string, SchemaObject>) =>
  consoleCsvDocs(
    summary,
    query,
    REFUSED,
    'RFC 4180 CSV, UTF-8, the columns of the Admin API export',
  );

/** A row's form: `status` or `reason` (the first of them it has) is required. */
const action = (summary: string, fields: Record<string, SchemaObject>, back: string) =>
  consoleActionDocs({
    summary,
    description: 'Redirects back with `notice` or `error`.',
    fields,
    required: ['status', 'reason'].filter((name) => name in fields).slice(0, 1),
    redirect: 'Back to the page',
    back,
    refused: REFUSED,
  });

const CONVERSION_FILTERS = filters(['registered', 'reversed']);
const LEAD_FILTERS = filters(['new', 'processed', 'converted', 'rejected'], {
  source: { type: 'string', enum: ['federation', 'lead_form', 'referral_link', 'promo_code'] },
});

export const RecordDocs = {
  conversions: () =>
    page('The conversions: status, partner, period; newest first', CONVERSION_FILTERS),
  conversion: () =>
    consolePageDocs(
      'A conversion: its order, partner, customer and cascade; reversal',
      { reversed: STRING, error: STRING, lang: STRING },
      REFUSED,
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
