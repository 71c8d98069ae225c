import {
  consoleActionDocs,
  consoleCsvDocs,
  consolePageDocs,
  DAY,
  STRING,
} from '../admin-pages/org-page.openapi';
import type { SchemaObject } from '../common/http/html-openapi';
import { PARTNER_SORTS } from './partners/partners.dto';

/**
 * OpenAPI of the console's pages (`/org/{slug}`, `/org/{slug}/partners…`), as admin-pages.openapi
 * documents the other areas (the shapes are admin-pages/org-page.openapi.ts').
 */

const LANG: SchemaObject = {
  type: 'string',
  enum: ['ru', 'en'],
  description: 'The language of the pages, remembered for the session',
};
const REFUSED: [number, string][] = [
  [403, 'Another organisation, a lower role, or (on a form post) a missing or stale `_csrf`'],
  [404, 'No such organisation (the platform admin), or no such partner'],
];

const ConsolePage = (summary: string, query: Record<string, SchemaObject> = {}) =>
  consolePageDocs(summary, { ...query, lang: LANG }, REFUSED);

const LIST_QUERY: Record<string, SchemaObject> = {
  q: { type: 'string', description: 'Name, email or external id (part of it)' },
  sort: { type: 'string', enum: [...PARTNER_SORTS] },
  page: { type: 'integer', minimum: 1 },
};

export const ConsoleDocs = {
  overview: () =>
    ConsolePage('The program overview: KPIs, daily charts, funnel, top partners', {
      from: DAY,
      to: DAY,
      error: STRING,
    }),
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
