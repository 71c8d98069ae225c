// A fuzz battery generated from the OpenAPI document (issue #14.2): every operation the document
// lists, with valid credentials for its security so the requests get past authentication, and
// each of its path parameters, query parameters, headers and body fields (nested ones too) in
// turn given hostile values: NUL and other control characters, unpaired surrogates, `null`,
// wrong types, arrays for scalars, huge strings, deep nesting, numbers out of range, and real ids
// of another tenant (B) sent with tenant A's credentials. A fixed sweep covers every target with
// the core values; FUZZ_RUNS more requests per operation (fast-check) draw targets and values at
// random, several at once. No answer may be a 5xx; every 4xx of a JSON route is a problem
// document; no answer carries a stack, SQL, or anything of tenant B.
//
//   FUZZ_RUNS=300 npx jest test/e2e/fuzz-openapi.e2e-spec.ts    (a longer run)
//   FUZZ_SEED=… FUZZ_ONLY='/embed/v1/data/leads' …               (repeat one, for one operation)
//   FUZZ_DUMP_OPENAPI=/tmp/openapi.json …                         (keep the document it read)
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import request, { type Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { ulid } from 'ulid';
import { EmbedTokenService } from '../../src/access/embed-token.service';
import { createTestApp, TestApp } from '../utils/create-test-app';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
/** Only the operations whose `METHOD /path` contains this (to repeat a finding). */
const ONLY = process.env.FUZZ_ONLY;
jest.setTimeout(240_000 + RUNS * 90 * 40);

// ---------------------------------------------------------------------------------------------
// The OpenAPI document, as much of it as the battery reads

interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minimum?: number;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security?: Record<string, string[]>[];
  responses?: Record<string, { content?: Record<string, unknown> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

type Location = 'path' | 'query' | 'header' | 'body' | 'form';
interface Target {
  in: Location;
  /** Parameter name, or the dotted path of a body field (`program.tiers.0.percent_bp`). */
  name: string;
  type: string;
}

interface Op {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  label: string;
  /** A server-rendered page: HTML answers, no problem documents. */
  html: boolean;
  security: string;
  params: Parameter[];
  bodyType?: 'json' | 'form';
  bodySchema?: Schema;
  targets: Target[];
}

const HTML_PATH = /^\/(org|oauth|s|demo)(\/|$)/;

function resolveRef(doc: Document, schema: Schema | undefined): Schema | undefined {
  if (!schema?.$ref) return schema;
  return doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
}

function operations(doc: Document): Op[] {
  const ops: Op[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = [...(op.parameters ?? [])];
      // Path parameters the document leaves out (`{slug}` of the admin routes) are fuzzed too.
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        if (!params.some((p) => p.in === 'path' && p.name === name)) {
          params.push({ name, in: 'path', required: true, schema: { type: 'string' } });
        }
      }
      const content = op.requestBody?.content ?? {};
      const bodyType = content['application/json']
        ? 'json'
        : content['application/x-www-form-urlencoded']
          ? 'form'
          : undefined;
      const bodySchema = resolveRef(
        doc,
        (content['application/json'] ?? content['application/x-www-form-urlencoded'])?.schema,
      );
      const html =
        HTML_PATH.test(path) ||
        Object.values(op.responses ?? {}).some((r) => r.content && 'text/html' in r.content);
      const security = Object.keys(op.security?.[0] ?? {})[0] ?? 'none';
      const targets: Target[] = params.map((p) => ({
        in: p.in as Location,
        name: p.name,
        type: resolveRef(doc, p.schema)?.type ?? 'string',
      }));
      // An unknown query parameter, on every operation.
      targets.push({ in: 'query', name: 'zz_unknown', type: 'string' });
      if (bodyType && bodySchema) {
        for (const field of bodyFields(doc, bodySchema)) {
          targets.push({ in: bodyType === 'json' ? 'body' : 'form', ...field });
        }
      }
      // The whole body: for operations without one too (a body they do not expect).
      targets.push({ in: bodyType === 'form' ? 'form' : 'body', name: '', type: 'object' });
      ops.push({
        method: method as Op['method'],
        path,
        label: `${method.toUpperCase()} ${path}`,
        html,
        security,
        params,
        bodyType,
        bodySchema,
        targets,
      });
    }
  }
  return ops;
}

/** Every field of a body schema, nested objects and the first item of arrays included. */
function bodyFields(
  doc: Document,
  schema: Schema,
  prefix = '',
  depth = 0,
): { name: string; type: string }[] {
  const fields: { name: string; type: string }[] = [];
  for (const [key, raw] of Object.entries(schema.properties ?? {})) {
    const field = resolveRef(doc, raw) ?? {};
    const name = prefix + key;
    const type = field.type ?? (field.properties ? 'object' : 'string');
    fields.push({ name, type });
    if (depth >= 2) continue;
    if (field.properties) fields.push(...bodyFields(doc, field, `${name}.`, depth + 1));
    const items = resolveRef(doc, field.items);
    if (items?.properties) fields.push(...bodyFields(doc, items, `${name}.0.`, depth + 1));
  }
  return fields;
}

// ---------------------------------------------------------------------------------------------
// Two tenants with data: A is the one whose credentials every request carries, B the one whose
// ids are thrown at A's routes and whose data must never come back.

interface World {
  slug: string;
  orgId: string;
  origin: string;
  key: string;
  keyId: string;
  spareKeyId: string;
  owner: string;
  spareTokenId: string;
  webhookSecret: string;
  referrer: { usr: string; mbr: string };
  member: { usr: string; mbr: string };
  spareMember: { usr: string; mbr: string };
  offerId: string;
  leadId: string;
  convertedLeadId: string;
  conversionId: string;
  bonusIds: string[];
  eventId: string;
  jwt: string;
  code: string;
  signedRef: string;
  /** Names, emails and secrets that are this tenant's alone. */
  markers: string[];
  tenantBody: Record<string, unknown>;
}

async function buildWorld(t: TestApp, http: () => TestAgent, name: string): Promise<World> {
  const slug = `fz${name.toLowerCase()}-${randomBytes(4).toString('hex')}`;
  const origin = `https://${slug}.example`;
  const admin = { Authorization: `Bearer ${t.adminToken}` };
  const must = (res: Response, status: number, what: string) => {
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text}`);
    return res.body;
  };
  const displayName = `Tenant ${name} Leakcheck Zebra`;
  const created = must(
    await http()
      .post('/admin/v1/tenants')
      .set(admin)
      .send({ slug, display_name: displayName, allowed_origins: [origin] }),
    201,
    'tenant',
  );
  const key = created.tenant_key as string;
  const { tenant_key: _key, ...tenantBody } = created;
  const base = `/admin/v1/tenants/${slug}`;
  const keys = must(await http().get(`${base}/keys`).set(admin), 200, 'keys');
  const keyId = keys.items[0].key_id as string;
  const spareKeyId = must(
    await http().post(`${base}/keys`).set(admin).send({ name: 'spare' }),
    201,
    'spare key',
  ).key_id as string;
  const owner = must(
    await http().post(`${base}/staff-tokens`).set(admin).send({ name: 'owner', role: 'owner' }),
    201,
    'owner token',
  ).token as string;
  const spareTokenId = must(
    await http().post(`${base}/staff-tokens`).set(admin).send({ name: 'spare', role: 'viewer' }),
    201,
    'spare token',
  ).token_id as string;
  const webhookSecret = must(
    await http()
      .put(`${base}/webhook`)
      .set(admin)
      .send({ url: 'https://127.0.0.1:9/hook', events: ['lead.created', 'bonus.pending'] }),
    200,
    'webhook',
  ).secret as string;
  const fed = { 'X-Service-Tenant-Key': key };
  const person = (n: string) => `${n} ${name}leakcheck`;
  const email = (n: string) => `${n.toLowerCase()}.${name.toLowerCase()}leakcheck@${slug}.example`;
  const upsert = async (n: string, extra: Record<string, unknown> = {}) => {
    const body = must(
      await http()
        .post('/federation/v1/users/upsert')
        .set(fed)
        .send({ external_id: `x-${n}`, full_name: person(n), email: email(n), ...extra }),
      200,
      'upsert',
    );
    return { usr: body.service_user_id as string, mbr: body.tenant_service_id as string };
  };
  const referrer = await upsert('Bertha');
  const member = await upsert('Boris', { referrer_user_id: referrer.usr });
  const spareMember = await upsert('Bella');
  const offerId = must(
    await http()
      .post(`${base}/offers`)
      .set(admin)
      .send({ name: person('Offer') }),
    201,
    'offer',
  ).offer_id as string;
  const lead = async () =>
    must(
      await http()
        .post('/federation/v1/leads')
        .set(fed)
        .send({
          referrer_user_id: member.usr,
          contact: { name: person('Lena'), email: email('Lena') },
          offer_id: offerId,
        }),
      200,
      'lead',
    ).lead_id as string;
  const leadId = await lead();
  const convertedLeadId = await lead();
  const conversion = must(
    await http().post('/federation/v1/conversions/register').set(fed).send({
      lead_id: convertedLeadId,
      amount_kopecks: 100_000,
      currency: 'RUB',
      external_order_id: 'order-1',
    }),
    200,
    'conversion',
  );
  const manual = must(
    await http()
      .post(`${base}/bonuses`)
      .set(admin)
      .send({ user_id: referrer.usr, amount_kopecks: 500, currency: 'RUB', reason: 'manual' }),
    201,
    'bonus',
  );
  const bonusIds = [
    ...(conversion.cascaded_bonuses as { bonus_id: string }[]).map((b) => b.bonus_id),
    manual.bonus_id as string,
  ];
  const events = must(await http().get(`${base}/webhook/events`).set(admin), 200, 'events');
  const jwt = t.app.get(EmbedTokenService).issue(created.org_id as string, referrer.mbr).token;
  const link = must(
    await http()
      .post(`/embed/v1/data/referral-link?tenant=${slug}`)
      .set({ Origin: origin, Authorization: `Bearer ${jwt}` })
      .send({ target_type: 'offer', target_id: 'spring-42', recommendation_text: person('Rec') }),
    200,
    'link',
  );
  return {
    slug,
    orgId: created.org_id as string,
    origin,
    key,
    keyId,
    spareKeyId,
    owner,
    spareTokenId,
    webhookSecret,
    referrer,
    member,
    spareMember,
    offerId,
    leadId,
    convertedLeadId,
    conversionId: conversion.conversion_id as string,
    bonusIds,
    eventId: events.items[0].event_id as string,
    jwt,
    code: link.code as string,
    signedRef: link.signed_ref as string,
    markers: [
      key,
      owner,
      webhookSecret,
      displayName,
      ...['Bertha', 'Boris', 'Bella', 'Lena', 'Offer', 'Rec'].map(person),
      ...['Bertha', 'Boris', 'Bella', 'Lena'].map(email),
    ],
    tenantBody,
  };
}

/** Tenant B's ids: what a client of A could send, and A's answers may only echo. */
function idsOf(w: World): string[] {
  return [
    w.slug,
    w.orgId,
    w.keyId,
    w.spareKeyId,
    w.spareTokenId,
    w.referrer.usr,
    w.referrer.mbr,
    w.member.usr,
    w.member.mbr,
    w.offerId,
    w.leadId,
    w.convertedLeadId,
    w.conversionId,
    ...w.bonusIds,
    w.eventId,
    w.code,
    w.signedRef,
  ];
}

/** The same kind of id as `name` names, of world `w` (B's for the hostile values). */
function idFor(w: World, name: string, path: string): string | undefined {
  const member = path.startsWith('/embed/') || path.includes('/users/{user_id}');
  switch (name) {
    case 'slug':
    case 'tenant':
    case 'client_id':
      return w.slug;
    case 'user_id':
      return member ? w.member.mbr : w.member.usr;
    case 'referrer_user_id':
      return w.referrer.usr;
    case 'lead_id':
      return path.includes('/status') ? w.leadId : w.convertedLeadId;
    case 'conversion_id':
      return w.conversionId;
    case 'bonus_id':
      // Approve and reject each get a pending bonus of their own.
      return path.endsWith('/reject') ? w.bonusIds[1] : w.bonusIds[0];
    case 'offer_id':
      return w.offerId;
    case 'event_id':
      return w.eventId;
    case 'key_id':
      return w.spareKeyId;
    case 'token_id':
      return w.spareTokenId;
    case 'code':
      return w.code;
    case 'ref':
    case 'signed_ref':
      return w.signedRef;
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile values

/** A JSON text spliced in where a body holds this value (too deep to build as an object). */
class RawJson {
  constructor(readonly text: string) {}
}
/** Leave the field out. */
const ABSENT = Symbol('absent');

const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { n: value };
  return value;
};
const deepArray = (levels: number) => new RawJson(`${'['.repeat(levels)}1${']'.repeat(levels)}`);
const randomId = (prefix: string) => `${prefix}_${ulid()}`;

const HOSTILE_TEXT: string[] = [
  'a\u0000b',
  '\u0000',
  'x\u0001y',
  'x\u001b[2Jy',
  'x\u007fy',
  'x\u0085y',
  '\ud800',
  'a\udfffb',
  '',
  ' ',
  'Мария 🌷',
  "' OR '1'='1",
  '../../etc/passwd',
  '%00',
  '\\',
  '__proto__',
  'null',
  'a'.repeat(300),
  'a'.repeat(5000),
];
const HOSTILE_NUMBERS: unknown[] = [
  -1,
  0,
  1.5,
  2 ** 31,
  2 ** 53 + 2,
  1e21,
  -1e308,
  1e308,
  '1',
  '-1',
];
const HOSTILE_JSON: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53 + 2,
  1e308,
  [],
  ['x'],
  [null],
  {},
  { ['__proto__']: { polluted: true } },
  { constructor: { prototype: 1 } },
  nested(40),
  deepArray(5000),
  'a'.repeat(70_000),
];
const HOSTILE_QUERY: string[] = ['-1', '0', '1.5', '1e3', 'NaN', '99999999999999999999', '01'];

/** The fixed sweep: the values every target gets. */
function coreValues(target: Target, b: World, op: Op): unknown[] {
  const other = idFor(b, target.name, op.path);
  const ids = [other, randomId(target.name.split('_')[0] || 'x')].filter((v) => v !== undefined);
  switch (target.in) {
    case 'path':
      return ['a\u0000b', 'x\u0001y', '\ud800', 'a'.repeat(300), '..', '%2e%2e', ...ids];
    case 'header':
      return ['', 'a'.repeat(300), 'a'.repeat(8000), 'null', "' OR '1'='1", ...ids];
    case 'query': {
      const numbers = ['number', 'integer'].includes(target.type)
        ? ['0', '99999999999999999999', '1e21', '9007199254740993']
        : [];
      return [
        'a\u0000b',
        'x\u0001y',
        '\ud800',
        'a'.repeat(3000),
        ['a', 'b'],
        '-1',
        '1.5',
        ...numbers,
        ...ids,
      ];
    }
    case 'form':
      if (!target.name) return ['a=\u0000', new RawJson('{"a":1}'), 'x'.repeat(70_000)];
      return ['a\u0000b', 'x\u0001y', ['a', 'b'], 'a'.repeat(70_000), ABSENT, '', ...ids];
    case 'body':
      if (!target.name) {
        return [
          new RawJson('[]'),
          new RawJson('null'),
          new RawJson('"x"'),
          nested(40),
          deepArray(10_000),
        ];
      }
      return [
        'a\u0000b',
        'x\u0001y',
        '\ud800',
        null,
        target.type === 'string' ? 12 : 'x',
        ['x'],
        { a: 1 },
        target.type === 'string' ? 'a'.repeat(70_000) : 2 ** 53 + 2,
        deepArray(5000),
        ABSENT,
        ...ids,
      ];
  }
}

/** The random part: any value of any kind, ids of both tenants included. */
function valueArbitrary(a: World, b: World): fc.Arbitrary<unknown> {
  // Not A's own key: revoking it (DELETE …/keys/{key_id}) would lock every later Federation
  // request out, and the rest of the run would test nothing but 401s.
  const ids = [...idsOf(a).filter((id) => id !== a.keyId), ...idsOf(b)];
  return fc.oneof(
    fc.constantFrom(...HOSTILE_TEXT),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.constantFrom(...HOSTILE_JSON),
    fc.constantFrom(...HOSTILE_QUERY),
    fc.constantFrom(...ids),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.integer(),
    fc.double(),
    fc.jsonValue({ maxDepth: 3 }),
    fc.constant(ABSENT),
  );
}

// ---------------------------------------------------------------------------------------------
// Building and sending requests

/** Percent-encodes like encodeURIComponent, but an unpaired surrogate as the CESU-8 bytes a hostile client would send. */
function pct(value: string): string {
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

const asText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : value instanceof RawJson
      ? value.text
      : (JSON.stringify(value) ?? 'undefined');

interface Built {
  method: Op['method'];
  url: string;
  headers: Record<string, string>;
  body?: string;
  contentType?: string;
}

interface Session {
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
function validValue(s: Session, op: Op, name: string, schema: Schema | undefined): unknown {
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

function validBody(s: Session, doc: Document, op: Op, schema: Schema, depth = 0): unknown {
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
const KEEP_OPTIONAL = new Set(['_csrf', 'email', 'offer_id', 'metadata', 'reason']);

/**
 * A deep copy of a generated value, so that mutations never share (or build cycles out of) one
 * object, nor change the constants; own `__proto__` keys stay own keys.
 */
function copy(value: unknown): unknown {
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

function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
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

function serializeJson(body: unknown): string {
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

function serializeForm(body: Record<string, unknown>): string {
  return Object.entries(body)
    .flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value]).map((v) => `${pct(key)}=${pct(asText(v))}`),
    )
    .join('&');
}

type Mutation = { target: Target; value: unknown };

function build(s: Session, doc: Document, op: Op, mutations: Mutation[]): Built {
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

function popupQuery(a: World): Record<string, string> {
  return {
    client_id: a.slug,
    response_type: 'code',
    scope: 'profile:read',
    state: 'st',
    popup: '1',
  };
}

// ---------------------------------------------------------------------------------------------
// What every answer must (not) be

const LEAKS_INTERNALS =
  /\n\s+at\s|\bat\s+\S+\s+\(|\.(ts|js):\d+|node_modules|QueryFailedError|TypeError|RangeError|ReferenceError|HttpException|duplicate key value|violates .* constraint|syntax error at or near|invalid input syntax|invalid byte sequence|\bSELECT\s.+\sFROM\s|\bINSERT INTO\b/i;

interface Finding {
  op: string;
  request: string;
  status: number;
  problem: string;
  body: string;
}

function judge(
  op: Op,
  built: Built,
  res: Response,
  b: World,
  bIds: string[],
  sentBefore: Set<string>,
): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`answered ${res.status}`);
  const text = res.text ?? '';
  const headers = JSON.stringify(res.headers);
  if (LEAKS_INTERNALS.test(text)) problems.push('leaks a stack or SQL');
  // The public pages pick their tenant by what the request names (a short link's code, the
  // popup's client_id): naming B's shows B's page to anyone, by design.
  const sent = `${built.url} ${built.body ?? ''} ${JSON.stringify(built.headers)}`;
  const namesB = /^\/(s|oauth)\//.test(op.path) && [b.slug, b.code].some((id) => sent.includes(id));
  for (const marker of namesB ? [] : b.markers) {
    if (text.includes(marker) || headers.includes(marker)) {
      problems.push(`leaks tenant B's data (${marker.slice(0, 12)}…)`);
    }
  }
  const decodedUrl = safeDecode(built.url);
  for (const id of namesB ? [] : bIds) {
    // An id the battery sent A earlier may come back as A's own data (a key named after it).
    const echoed = sent.includes(id) || decodedUrl.includes(id) || sentBefore.has(id);
    if ((text.includes(id) || headers.includes(id)) && !echoed) {
      problems.push(`answers with tenant B's id ${id} it was not sent`);
    }
  }
  if (!op.html && res.status >= 400 && res.status < 500) {
    const body = res.body as Record<string, unknown> | undefined;
    const problemJson = /^application\/problem\+json/.test(res.headers['content-type'] ?? '');
    if (
      !problemJson ||
      typeof body?.type !== 'string' ||
      typeof body.title !== 'string' ||
      body.status !== res.status ||
      typeof body.code !== 'string'
    ) {
      problems.push('a 4xx that is not a problem document');
    }
  }
  return problems;
}

function safeDecode(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

// ---------------------------------------------------------------------------------------------

describe('OpenAPI fuzz battery', () => {
  let t: TestApp;
  let http: () => TestAgent;
  let doc: Document;
  let s: Session;
  let server: { close: () => void };

  beforeAll(async () => {
    t = await createTestApp({
      // No background delivery of the fuzzed webhooks; short attempts for webhook/test.
      PROCESS_ROLE: 'api',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '500',
    });
    const listening = t.app.getHttpServer().listen(0, '127.0.0.1');
    await new Promise((done) => listening.once('listening', done));
    server = listening;
    const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    http = () => request(base);
    doc = (await http().get('/docs/openapi.json')).body as Document;
    if (process.env.FUZZ_DUMP_OPENAPI)
      writeFileSync(process.env.FUZZ_DUMP_OPENAPI, JSON.stringify(doc));
    const a = await buildWorld(t, http, 'A');
    const b = await buildWorld(t, http, 'B');
    s = {
      a,
      b,
      adminToken: t.adminToken,
      counter: 0,
      widgetVersion: (await http().get('/embed/v1/widget.json')).body.version as string,
      ...(await orgSession(http, a)),
      ...(await popupSession(http, a)),
    };
  });
  afterAll(async () => {
    server?.close();
    await t?.close();
  });

  it('sends hostile values to every operation: no 5xx, problem documents, no leaks', async () => {
    const ops = operations(doc)
      .filter((op) => !ONLY || op.label.includes(ONLY))
      .sort((x, y) => Number(x.path === '/org/sign-out') - Number(y.path === '/org/sign-out'));
    if (!ONLY) expect(ops.length).toBeGreaterThan(40);
    const bIds = idsOf(s.b);
    const findings: Finding[] = [];
    type Row = Record<'base' | 'sent' | '2xx' | '3xx' | '4xx' | '5xx', number>;
    const counts = new Map<string, Row>();

    const sentIds = new Set<string>();
    const send = async (op: Op, mutations: Mutation[]): Promise<number | undefined> => {
      const built = build(s, doc, op, mutations);
      const sent = `${safeDecode(built.url)} ${built.body ?? ''}`;
      let res: Response;
      try {
        const req = http()[built.method](built.url).set(built.headers);
        if (built.contentType) req.set('Content-Type', built.contentType);
        res = await (built.body === undefined ? req : req.send(built.body));
      } catch (error) {
        // Node's client refuses some header values itself (ERR_INVALID_CHAR): never sent.
        if ((error as { code?: string }).code?.startsWith('ERR_')) return undefined;
        throw error;
      }
      const row = counts.get(op.label)!;
      row.sent++;
      row[`${Math.min(Math.max(Math.floor(res.status / 100), 2), 5)}xx` as '2xx']++;
      for (const problem of judge(op, built, res, s.b, bIds, sentIds)) {
        findings.push({
          op: op.label,
          request: `${built.method.toUpperCase()} ${built.url.slice(0, 160)} ${(built.body ?? '').slice(0, 160)}`,
          status: res.status,
          problem,
          body: (res.text ?? '').slice(0, 200),
        });
      }
      for (const id of bIds) if (sent.includes(id)) sentIds.add(id);
      await restore(op, res);
      return res.status;
    };

    /** Puts back what a request may have changed that later requests rely on. */
    const restore = async (op: Op, res: Response) => {
      if (res.status >= 400) return;
      const admin = { Authorization: `Bearer ${s.adminToken}` };
      const base = `/admin/v1/tenants/${s.a.slug}`;
      if (/^\/(admin\/v1\/tenants\/\{slug\}|org\/\{slug\}\/integration\/settings)$/.test(op.path)) {
        const { allowed_origins, link_domains, link_templates, display_name, program } =
          s.a.tenantBody;
        await http()
          .patch(base)
          .set(admin)
          .send({ allowed_origins, link_domains, link_templates, display_name, program });
      }
      if (op.path.endsWith('/webhook') && op.method !== 'get') {
        await http()
          .put(`${base}/webhook`)
          .set(admin)
          .send({ url: 'https://127.0.0.1:9/hook', events: ['lead.created', 'bonus.pending'] });
      }
    };

    for (const op of ops) {
      counts.set(op.label, { base: 0, sent: 0, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 });
      // The valid request the mutations start from (its status says how deep they reach).
      counts.get(op.label)!.base = (await send(op, [])) ?? 0;
      for (const target of op.targets) {
        for (const value of coreValues(target, s.b, op)) await send(op, [{ target, value }]);
      }
      if (RUNS > 0) {
        const mutation = fc.record({
          target: fc.constantFrom(...op.targets),
          value: valueArbitrary(s.a, s.b),
        });
        await fc.assert(
          fc.asyncProperty(
            fc.array(mutation, { minLength: 1, maxLength: 3 }),
            async (mutations) => {
              await send(op, mutations);
            },
          ),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
      }
    }

    const rows = [...counts.entries()];
    const width = Math.max(...rows.map(([label]) => label.length));
    const total = { sent: 0, '5xx': 0 };
    const lines = [
      `OpenAPI fuzz battery: FUZZ_RUNS=${RUNS}, FUZZ_SEED=${SEED}`,
      `${'operation'.padEnd(width)}  base  requests   2xx   3xx   4xx   5xx`,
    ];
    for (const [label, row] of rows) {
      total.sent += row.sent;
      total['5xx'] += row['5xx'];
      lines.push(
        `${label.padEnd(width)}  ${String(row.base).padStart(4)}  ${String(row.sent).padStart(8)}${[
          row['2xx'],
          row['3xx'],
          row['4xx'],
          row['5xx'],
        ]
          .map((n) => String(n).padStart(6))
          .join('')}`,
      );
    }
    lines.push(`${'total'.padEnd(width)}        ${String(total.sent).padStart(8)}`);
    lines.push(`5xx answers: ${total['5xx']}; findings: ${findings.length}`);
    // Every 5xx, then the first of the other findings.
    const shown = [
      ...findings.filter((f) => f.status >= 500),
      ...findings.filter((f) => f.status < 500).slice(0, 40),
    ];
    for (const f of shown) {
      lines.push(`  ${f.problem} — ${f.op} → ${f.status}: ${f.request} ⇒ ${f.body}`);
    }
    process.stdout.write(`\n${lines.join('\n')}\n\n`);

    for (const [label, row] of rows) {
      expect({ label, enough: row.sent >= 8 }).toEqual({ label, enough: true });
    }
    // The credentials held for the whole run: no valid request was refused as unauthenticated.
    const locked = ops.filter((op) => op.security !== 'none' && counts.get(op.label)!.base === 401);
    expect(locked.map((op) => op.label)).toEqual([]);
    expect(total['5xx']).toBe(0);
    expect(findings).toEqual([]);
  });

  it('leaves tenant B as it was: its key, staff token and members still work', async () => {
    const b = s.b;
    const upsert = await http()
      .post('/federation/v1/users/upsert')
      .set('X-Service-Tenant-Key', b.key)
      .send({ external_id: 'x-Bertha' });
    expect(upsert.status).toBe(200);
    const keys = await http()
      .get(`/admin/v1/tenants/${b.slug}/keys`)
      .set('Authorization', `Bearer ${b.owner}`);
    expect(keys.status).toBe(200);
    expect(
      (keys.body.items as { key_id: string; revoked_at: string | null }[])
        .filter((k) => k.revoked_at !== null)
        .map((k) => k.key_id),
    ).toEqual([]);
    const tokens = await http()
      .get(`/admin/v1/tenants/${b.slug}/staff-tokens`)
      .set('Authorization', `Bearer ${b.owner}`);
    expect(
      (tokens.body.items as { revoked_at: string | null }[]).every((k) => k.revoked_at === null),
    ).toBe(true);
    const cabinet = await http()
      .get(`/embed/v1/data/cabinet/${b.referrer.mbr}?tenant=${b.slug}`)
      .set('Origin', b.origin);
    expect(cabinet.status).toBe(200);
    const rows: { status: string }[] = await t.db.query(
      `SELECT status FROM leads WHERE tenant_id = $1 AND id = $2`,
      [b.orgId, b.leadId],
    );
    const [{ status }] = rows;
    expect(status).toBe('new');
  });
});

/** Signs in to the admin pages as tenant A's owner, as a browser does (form, cookie, CSRF). */
async function orgSession(http: () => TestAgent, a: World) {
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
async function popupSession(http: () => TestAgent, a: World) {
  const page = await http().get('/oauth/authorize').query(popupQuery(a));
  return { popupCookie: cookiesOf(page), popupCsrf: hidden(page.text, '_csrf') };
}

function cookiesOf(res: Response): string {
  return ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .filter((pair) => !pair.endsWith('='))
    .join('; ');
}

function hidden(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&');
}
