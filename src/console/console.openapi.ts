import {
  consoleActionDocs,
  consoleCsvDocs,
  consolePageDocs,
  DAY,
  LANG,
  refusedOn,
  STRING,
} from './org-page.openapi';
import type { SchemaObject } from '../common/http/html-openapi';
import { PARTNER_SORTS } from './members/partners.dto';

/**
 * OpenAPI of the console's pages: the overview and partners (`ConsoleDocs`), the conversions,
 * leads and a partner's ban form (`RecordDocs`), as admin-pages.openapi documents the other areas
 * (the shapes are org-page.openapi.ts').
 */

const REFUSED = refusedOn('partner');

const ConsolePage = (summary: string, query: Record<string, SchemaObject> = {}) =>
  consolePageDocs(summary, { ...query, lang: LANG }, REFUSED);

const PERIOD_DAY: SchemaObject = {
  ...DAY,
  description:
    'YYYY-MM-DD (UTC), 2000-01-01 to 2100-12-31; the period spans at most 731 days (docs/console.md)',
};

const LIST_QUERY: Record<string, SchemaObject> = {
  q: {
    type: 'string',
    description:
      'Name, email or external id (a part of it with 3 letters or digits in a row), or a whole mbr_… / usr_… id; a shorter search is refused (400)',
  },
  sort: { type: 'string', enum: [...PARTNER_SORTS] },
  page: { type: 'integer', minimum: 1 },
};

export const ConsoleDocs = {
  overview: () =>
    consolePageDocs(
      'The program overview: KPIs, daily charts, funnel, top partners',
      { from: PERIOD_DAY, to: PERIOD_DAY, error: STRING, lang: LANG },
      [
        ...REFUSED,
        [
          400,
          'A period refused (not a day, outside 2000-01-01..2100-12-31, from after to, longer than 731 days): the period picker, saying why',
        ],
      ],
    ),
  partners: () =>
    ConsolePage('The partners: search, sort, pages', {
      ...LIST_QUERY,
      notice: STRING,
      error: STRING,
    }),
  partnersCsv: () =>
    consoleCsvDocs(
      "The partners list as CSV (the page's search and sort), streamed",
      { q: LIST_QUERY.q, sort: LIST_QUERY.sort },
      REFUSED,
      'RFC 4180 CSV, UTF-8',
    ),
  partner: () => ConsolePage("A partner's page", { notice: STRING, error: STRING }),
  setActive: (active: boolean) =>
    consoleActionDocs({
      summary: active ? 'Activates the partner' : 'Deactivates the partner',
      description: "Redirects back to the partner's page with `notice` or `error`.",
      fields: {},
      required: [],
      redirect: "Back to the partner's page",
      back: '/org/{slug}/partners/{user_id}',
      refused: REFUSED,
    }),
};

const MEMBER: SchemaObject = { type: 'string', description: 'The partner: mbr_… or usr_…' };

function filters(status: string[], more: Record<string, SchemaObject> = {}) {
  return {
    status: { type: 'string', enum: status } as SchemaObject,
    user_id: MEMBER,
    from: DAY,
    to: DAY,
    ...more,
  };
}

/** A list of records; its path names none, so only the organisation may be missing. */
const recordList = (summary: string, query: Record<string, SchemaObject>) =>
  consolePageDocs(
    summary,
    {
      ...query,
      page: { type: 'integer', minimum: 1 },
      notice: STRING,
      error: STRING,
      lang: LANG,
    },
    refusedOn(),
  );

const recordsCsv = (summary: string, query: Record<string, SchemaObject>) =>
  consoleCsvDocs(
    summary,
    query,
    refusedOn(),
    'RFC 4180 CSV, UTF-8, the columns of the Admin API export',
  );

/**
 * A row's form, refused as the record `missing` is: `status` or `reason` (the first of them it
 * has) is required.
 */
const recordAction = (
  summary: string,
  fields: Record<string, SchemaObject>,
  back: string,
  missing: string,
) =>
  consoleActionDocs({
    summary,
    description: 'Redirects back with `notice` or `error`.',
    fields,
    required: ['status', 'reason'].filter((name) => name in fields).slice(0, 1),
    redirect: 'Back to the page',
    back,
    refused: refusedOn(missing),
  });

const CONVERSION_FILTERS = filters(['registered', 'reversed']);
const LEAD_FILTERS = filters(['new', 'processed', 'converted', 'rejected'], {
  source: { type: 'string', enum: ['federation', 'lead_form', 'referral_link', 'promo_code'] },
});

export const RecordDocs = {
  conversions: () =>
    recordList('The conversions: status, partner, period; newest first', CONVERSION_FILTERS),
  conversion: () =>
    consolePageDocs(
      'A conversion: its order, partner, customer and cascade; reversal',
      { reversed: STRING, error: STRING, lang: LANG },
      refusedOn('conversion'),
    ),
  conversionsCsv: () =>
    recordsCsv("The conversions export with the page's filters, streamed", CONVERSION_FILTERS),
  reverse: () =>
    recordAction(
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
      'conversion',
    ),
  leadStatus: () =>
    recordAction(
      "Changes the lead's status (`processed` or `rejected`; rejecting rejects its pending lead bonuses)",
      {
        status: { type: 'string', enum: ['processed', 'rejected'] },
        reason: { type: 'string', maxLength: 500 },
        back: { type: 'string', description: "The list's query, kept by the redirect" },
      },
      '/org/{slug}/leads',
      'lead',
    ),
  leads: () => recordList('The leads: status, source, partner, period; newest first', LEAD_FILTERS),
  leadsCsv: () => recordsCsv("The leads export with the page's filters, streamed", LEAD_FILTERS),
  unban: () =>
    recordAction(
      'Lifts the ban of the partner (docs/fraud.md)',
      {},
      '/org/{slug}/partners/{user_id}',
      'partner',
    ),
  ban: () =>
    recordAction(
      'Bans the partner (docs/fraud.md)',
      { reason: { type: 'string', minLength: 1, maxLength: 500 } },
      '/org/{slug}/partners/{user_id}',
      'partner',
    ),
};
