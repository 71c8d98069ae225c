/**
 * Building and sending the fuzz battery's requests: valid values for every field, then the
 * mutations, serialised as JSON or a form, with the credentials of the operation's security.
 */
import type TestAgent from 'supertest/lib/agent';
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { ABSENT, RawJson } from './hostile-values';
import { Document, Op, Schema, Target, resolveRef } from './openapi-doc';
import { World, idFor } from './world';

/** Percent-encodes like encodeURIComponent, but an unpaired surrogate as the CESU-8 bytes a hostile client would send. */
export function pct(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const next = value.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(value[i]);
    }
  }
  return out;
}

export const asText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : value instanceof RawJson
      ? value.text
      : (JSON.stringify(value) ?? 'undefined');

export interface Built {
  method: Op['method'];
  url: string;
  headers: Record<string, string>;
  body?: string;
  contentType?: string;
}

export interface Session {
  a: World;
  b: World;
  adminToken: string;
  orgCookie: string;
  orgCsrf: string;
  signInCookie: string;
  signInCsrf?: string;
  popupCookie: string;
  popupCsrf?: string;
  widgetVersion: string;
  counter: number;
}

/** A valid value for a body field or parameter, by its name (fixtures of A) or its schema. */
export function validValue(s: Session, op: Op, name: string, schema: Schema | undefined): unknown {
  const a = s.a;
  const n = ++s.counter;
  const id = idFor(a, name, op.path);
  if (id !== undefined && !(name === 'slug' && op.path === '/admin/v1/tenants')) return id;
  switch (name) {
    case 'slug':
      return `fz-${randomBytes(5).toString('hex')}`;
    case 'external_id':
      return `fz-${n}`;
    case 'external_order_id':
      return `fz-order-${n}`;
    case 'amount_kopecks':
      return 1000;
    case 'email':
      return `fz${n}@${a.slug}.example`;
    case 'allowed_origins':
      return op.bodyType === 'form' ? a.origin : [a.origin];
    case 'url':
      return op.path.endsWith('/webhook') ? 'https://127.0.0.1:9/hook' : 'https://a.example/o';
    case 'events':
      return ['lead.created'];
    case 'target_type':
      return 'offer';
    case 'target_id':
      return `t-${n}`;
    case 'token':
      return a.owner;
    case '_csrf':
      return op.path === '/org/sign-in'
        ? s.signInCsrf
        : op.path.startsWith('/oauth')
          ? s.popupCsrf
          : s.orgCsrf;
    case 'response_type':
      return 'code';
    case 'scope':
      return 'profile:read';
    case 'state':
      return 'st';
    case 'popup':
      return '1';
    case 'status':
      return op.path.includes('/leads/') ? 'processed' : undefined;
    case 'Origin':
      return a.origin;
    case 'version':
      return s.widgetVersion;
    default:
      break;
  }
  if (!schema) return undefined;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.example !== undefined) return structuredClone(schema.example);
  switch (schema.type) {
    case 'string':
      return 'fuzz';
    case 'number':
    case 'integer':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    default:
      return undefined;
  }
}

export function validBody(s: Session, doc: Document, op: Op, schema: Schema, depth = 0): unknown {
  const body: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(schema.properties ?? {})) {
    const field = resolveRef(doc, raw);
    const required = schema.required?.includes(key) ?? false;
    let value = validValue(s, op, key, field);
    if (value === undefined && field?.properties && depth < 3) {
      value = validBody(s, doc, op, field, depth + 1);
    }
    if (value !== undefined && (required || KEEP_OPTIONAL.has(key))) body[key] = value;
  }
  return body;
}
/** Optional fields worth sending in the valid base (so their handling is reached). */
export const KEEP_OPTIONAL = new Set(['_csrf', 'email', 'offer_id', 'metadata', 'reason']);

/**
 * A deep copy of a generated value, so that mutations never share (or build cycles out of) one
 * object, nor change the constants; own `__proto__` keys stay own keys.
 */
export function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (typeof value !== 'object' || value === null || value instanceof RawJson) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: copy(item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

export function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node: Record<string, unknown> = body;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = /^\d+$/.test(key) ? [] : {};
    node = node[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1];
  if (value === ABSENT) delete node[last];
  else node[last] = value;
}

export function serializeJson(body: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(body, (_key, value: unknown) => {
    if (value instanceof RawJson) {
      raws.push(value.text);
      return `__RAW_${raws.length - 1}__`;
    }
    return value;
  });
  return raws.reduce((out, raw, i) => out.replace(`"__RAW_${i}__"`, raw), text);
}

export function serializeForm(body: Record<string, unknown>): string {
  return Object.entries(body)
    .flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value]).map((v) => `${pct(key)}=${pct(asText(v))}`),
    )
    .join('&');
}

export type Mutation = { target: Target; value: unknown };

export function build(s: Session, doc: Document, op: Op, mutations: Mutation[]): Built {
  const a = s.a;
  const pathValues: Record<string, unknown> = {};
  const query: [string, unknown][] = [];
  const headers: Record<string, string> = {};
  for (const p of op.params) {
    const value = validValue(s, op, p.name, resolveRef(doc, p.schema));
    if (p.in === 'path') pathValues[p.name] = value;
    else if (p.in === 'query' && p.required && value !== undefined) query.push([p.name, value]);
    else if (p.in === 'header' && p.name === 'Origin') headers.Origin = String(value);
  }
  switch (op.security) {
    case 'tenant-key':
      headers['X-Service-Tenant-Key'] = a.key;
      break;
    case 'admin':
      headers.Authorization = `Bearer ${op.path === '/admin/v1/tenants' ? s.adminToken : a.owner}`;
      break;
    case 'embed':
      headers.Authorization = `Bearer ${a.jwt}`;
      headers.Origin = a.origin;
      break;
    case 'admin-session':
      headers.Cookie = s.orgCookie;
      break;
    default:
      if (op.path.startsWith('/embed/v1/data/')) headers.Origin = a.origin;
      if (op.path === '/org/sign-in') headers.Cookie = s.signInCookie;
      if (op.path.startsWith('/oauth')) headers.Cookie = s.popupCookie;
  }
  if (op.path.startsWith('/oauth') && op.method === 'get') {
    for (const [k, v] of Object.entries(popupQuery(a))) {
      if (!query.some(([name]) => name === k)) query.push([k, v]);
    }
  }
  let body: unknown =
    op.bodySchema && op.bodyType ? validBody(s, doc, op, op.bodySchema) : undefined;
  if (op.path.startsWith('/oauth/') && op.method === 'post') {
    body = { ...popupQuery(a), ...(body as Record<string, unknown>) };
  }
  for (const { target, value } of mutations) {
    switch (target.in) {
      case 'path':
        pathValues[target.name] = value;
        break;
      case 'query': {
        const i = query.findIndex(([k]) => k === target.name);
        if (i >= 0) query.splice(i, 1);
        if (value !== ABSENT) query.push([target.name, value]);
        break;
      }
      case 'header':
        if (value === ABSENT) delete headers[target.name];
        else headers[target.name] = asText(value);
        break;
      case 'body':
      case 'form':
        if (!target.name) body = copy(value);
        else {
          if (typeof body !== 'object' || body === null || Array.isArray(body)) body = {};
          setPath(body as Record<string, unknown>, target.name, copy(value));
        }
    }
  }
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    pathValues[name] === ABSENT ? '' : pct(asText(pathValues[name])),
  );
  const search = query
    .flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [v]).map((item) => `${pct(k)}=${pct(asText(item))}`),
    )
    .join('&');
  const built: Built = { method: op.method, url: search ? `${path}?${search}` : path, headers };
  const sendsBody = body !== undefined && body !== ABSENT;
  if (sendsBody && (op.bodyType === 'form' || mutations.some((m) => m.target.in === 'form'))) {
    built.contentType = 'application/x-www-form-urlencoded';
    built.body =
      typeof body === 'object' && body !== null && !(body instanceof RawJson)
        ? serializeForm(body as Record<string, unknown>)
        : asText(body);
  } else if (sendsBody) {
    built.contentType = 'application/json';
    built.body = serializeJson(body);
  }
  return built;
}

export function popupQuery(a: World): Record<string, string> {
  return {
    client_id: a.slug,
    response_type: 'code',
    scope: 'profile:read',
    state: 'st',
    popup: '1',
  };
}

/** Signs in to the admin pages as tenant A's owner, as a browser does (form, cookie, CSRF). */
export async function orgSession(http: () => TestAgent, a: World) {
  const form = await http().get('/org/sign-in');
  const signInCookie = cookiesOf(form);
  const signInCsrf = hidden(form.text, '_csrf');
  const signIn = await http()
    .post('/org/sign-in')
    .set('Cookie', signInCookie)
    .type('form')
    .send({ token: a.owner, ...(signInCsrf ? { _csrf: signInCsrf } : {}) });
  const orgCookie = [signInCookie, cookiesOf(signIn)].filter(Boolean).join('; ');
  if (!/svc_admin=/.test(orgCookie)) throw new Error(`org sign-in: ${signIn.status}`);
  const page = await http().get(`/org/${a.slug}/integration`).set('Cookie', orgCookie);
  return { signInCookie, signInCsrf, orgCookie, orgCsrf: hidden(page.text, '_csrf') ?? '' };
}

/** Opens the popup for tenant A: its pre-session cookie and the email form's CSRF token. */
export async function popupSession(http: () => TestAgent, a: World) {
  const page = await http().get('/oauth/authorize').query(popupQuery(a));
  return { popupCookie: cookiesOf(page), popupCsrf: hidden(page.text, '_csrf') };
}

export function cookiesOf(res: Response): string {
  return ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .filter((pair) => !pair.endsWith('='))
    .join('; ');
}

export function hidden(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&');
}
