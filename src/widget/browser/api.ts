/** The Embed APIs as the widgets call them, and what their errors mean to a person. */

import type { Ctx } from './context';
import { BASE, tell } from './env';
import { authorization } from './popup';
import type { OriginCheck, Problem } from './types';

export class ApiError extends Error {
  constructor(
    /** The HTTP status; 0 when the service could not be reached. */
    readonly status: number,
    readonly code?: string | null,
    readonly detail?: string | null,
    readonly errors?: Problem['errors'] | null,
  ) {
    super(detail || code || `HTTP ${status}`);
  }
}

type Params = Record<string, string | number | null | undefined>;

function url(c: Ctx, path: string, params?: Params | null): string {
  const u = new URL(`${BASE}/embed/v1/${path}`);
  u.searchParams.set('tenant', c.tenant);
  if (c.asked) u.searchParams.set('locale', c.asked);
  const p: Params = params || {};
  for (const k in p) {
    const v = p[k];
    if (v != null) u.searchParams.set(k, String(v));
  }
  return u.href;
}

/**
 * Calls the API for widget `c`, with the partner's token while they are signed in: the answer's
 * JSON, or an `ApiError`.
 */
export async function call<T>(
  c: Ctx,
  path: string,
  params?: Params | null,
  init?: RequestInit & { headers?: Record<string, string> },
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url(c, path, params), {
      credentials: 'omit',
      ...init,
      // The partner's token while they are signed in: a tenant with `embed_auth: token` needs it
      // on every read (docs/embedding.md §3); others ignore it.
      headers: {
        Accept: 'application/json',
        ...authorization(c.tenant),
        ...(init && init.headers),
      },
    });
  } catch {
    throw await unreachable(c);
  }
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // not JSON
  }
  if (!res.ok) {
    const p = body as Problem | null;
    throw new ApiError(res.status, p && p.code, p && p.detail, p && p.errors);
  }
  return body as T;
}

const checks: Record<string, Promise<OriginCheck | null> | undefined> = {};

/** The origin check of a tenant, asked once per page (again after an outage); null if down. */
export function originCheck(tenant: string): Promise<OriginCheck | null> {
  return (checks[tenant] =
    checks[tenant] ||
    fetch(`${BASE}/embed/v1/widget/origin-check?tenant=${encodeURIComponent(tenant)}`, {
      credentials: 'omit',
    })
      .then((r) => r.json() as Promise<OriginCheck>)
      .catch(() => null));
}

/**
 * A refused origin gets a 403 whose CORS headers the browser will not let a script read, so a
 * failed fetch looks like a network error. The origin check (readable from anywhere) tells a
 * refusal from an outage.
 */
async function unreachable(c: Ctx): Promise<ApiError> {
  const check = await originCheck(c.tenant);
  if (!check) delete checks[c.tenant]; // an outage: ask again next time
  if (check && !check.allowed) {
    return new ApiError(check.code === 'tenant_not_found' ? 404 : 403, check.code, check.detail);
  }
  return new ApiError(0, 'network', 'unreachable');
}

/** Whatever a call threw, read as an `ApiError` (a bug's TypeError has neither code nor status). */
export type Failure = Partial<ApiError> | null | undefined;

/**
 * A refusal that the partner's own sign-in answers: a tenant whose widgets need it
 * (`embed_auth: token`) read without a token, with an expired one, or as another member.
 */
export const needsSignIn = (e: Failure): boolean =>
  !!e &&
  (e.status === 401 ||
    (e.status === 403 && (e.code === 'forbidden' || e.code === 'tenant_mismatch')));

/** The user-facing text for an error, and the developer's console line where one helps. */
export function explain(c: Ctx, e: Failure): string {
  if (!e) return c.t('err');
  const code = e.code;
  if (code === 'origin_not_allowed') {
    tell(
      'error',
      `403 origin_not_allowed: ${e.detail || ''} Add "${location.origin}" to the allowed_origins of ` +
        `tenant "${c.tenant}" (Admin API: PATCH ${BASE}/admin/v1/tenants/${c.tenant}, or the ` +
        `integration page ${BASE}/org/${c.tenant}/integration). Until then every request from this ` +
        'page is refused.',
    );
    return c.t('errOrigin');
  }
  if (code === 'tenant_not_found') {
    tell(
      'error',
      `404 tenant_not_found: no tenant "${c.tenant}". Check data-tenant on the <script> tag.`,
    );
    return c.t('errTenant');
  }
  if (code === 'user_not_found') {
    tell(
      'error',
      `404 user_not_found: data-user-id="${c.userId}" is not a member of tenant "${c.tenant}". ` +
        'Pass the tenant_service_id that POST /federation/v1/users/upsert returned for the user.',
    );
    return c.t('errUser');
  }
  if (code === 'validation_failed') {
    tell(
      'error',
      `400 validation_failed on the "${c.name}" widget: ${JSON.stringify(e.errors || e.detail)}`,
    );
    return c.t('errConfig');
  }
  if (code === 'network') return c.t('errNet');
  return c.t('err');
}
