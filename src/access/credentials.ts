import type { IncomingHttpHeaders } from 'node:http';

export const TENANT_KEY_HEADER = 'x-service-tenant-key';
/** The admin pages' session cookie (path `/org`), set by `POST /org/sign-in`. */
export const ADMIN_COOKIE = 'svc_admin';

/**
 * A request's credentials as plain values (headers, query, route parameters, client address),
 * whoever read them: the global guard from Express's request, a fast lane from Node's, a page from
 * its cookie. AccessService decides from these alone, so every road into the service is checked
 * by the same code.
 */
export interface Credentials {
  /** `X-Service-Tenant-Key` (Federation API). */
  tenantKey?: string;
  /** `Authorization` (admin token, staff token `stf_…`, embed bearer JWT). */
  authorization?: string;
  /** `?tenant=`, as the query parser gave it (a repeated parameter is not a string). */
  tenant?: unknown;
  /** `Origin` and `Sec-Fetch-Site` (the Embed APIs' Origin gate). */
  origin?: string;
  secFetchSite?: string;
  /** The route's `:slug` (Admin API, an organisation's page). */
  slug?: string;
  /** The route's `:user_id` (an Embed Data read: the member it reads). */
  userId?: string;
  /**
   * `Cookie`, as sent: the admin pages' session is its `svc_admin`. Read only by the routes that
   * take that session, so no other request pays for parsing it.
   */
  cookie?: string;
  /** The method, and a posted form's `_csrf` field (an organisation's form posts). */
  method?: string;
  csrf?: string;
  /** The client address, as Express's `req.ip` gives it (per-IP rate limits). */
  ip: string;
}

/** What both roads into the service have of a request. */
export interface RequestParts {
  headers: IncomingHttpHeaders;
  query: Readonly<Record<string, unknown>>;
  params: Readonly<Record<string, unknown>>;
  ip?: string;
  method?: string;
  /** The parsed body, when a body parser has run (a page's form: an object of fields). */
  body?: unknown;
}

/** The credentials of a request from its parts. */
export function credentialsOf(req: RequestParts): Credentials {
  const { headers, query, params } = req;
  return {
    tenantKey: text(headers[TENANT_KEY_HEADER]),
    authorization: headers.authorization,
    tenant: query.tenant,
    origin: headers.origin,
    secFetchSite: text(headers['sec-fetch-site']),
    slug: typeof params.slug === 'string' ? params.slug : undefined,
    userId: typeof params.user_id === 'string' ? params.user_id : undefined,
    cookie: headers.cookie,
    method: req.method,
    csrf: field(req.body, '_csrf'),
    ip: req.ip ?? '',
  };
}

/** The token of `Authorization: Bearer <token>`, if that is what the header holds. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/** A string field of a parsed form body; none when there is no body or it is not an object. */
function field(body: unknown, name: string): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function text(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.join(', ');
}
