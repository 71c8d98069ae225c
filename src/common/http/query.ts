import { parse } from 'node:querystring';

/**
 * The query string as `req.query` holds it: Express's `simple` parser (`node:querystring`; a
 * repeated name gives an array, no nesting). app.setup.ts hands Express this very function
 * (`app.set('query parser', parseQuery)`, a documented setting) and the fast lanes call it, so the
 * two roads read a query alike by construction.
 */
export function parseQuery(query: string | null | undefined): Record<string, unknown> {
  return parse(query ?? '');
}
