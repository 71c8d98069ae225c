// A client generated from the live OpenAPI document works (README.md, "Generated clients"): the
// document the running app serves goes through openapi-typescript, a small client program using
// openapi-fetch with those types is type-checked (strict) by the TypeScript compiler, then run in
// its own Node process against the app on a loopback port, doing the README's "Five-minute
// walk-through" step by step: a tenant and a key, two partners, a referral cycle refused, a lead,
// an order and its idempotent replay, the Admin API with the platform token and a staff token
// (bonuses listed and one approved, the audit log, a refusal), and the Embed Data API from an
// allowed origin, in another locale, and from a refused one. A document that leaves out a path
// parameter or declares the wrong shape fails the type-check; one that misdescribes an answer
// fails the assertions.
//
//   OPENAPI_CLIENT_KEEP=1 npx jest test/e2e/service/openapi-client.e2e-spec.ts   (keeps the files)
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { ROOT } from '../../utils/service-entry';

jest.setTimeout(120_000);

/**
 * The client program: only the generated `paths` and openapi-fetch, as an integrator would write
 * it. It returns what it saw; the test below asserts it. Each call is typed by the document: a
 * path parameter, query parameter or header the document leaves out, or a body field it names
 * otherwise, does not compile.
 */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './schema';

/** The body of a successful answer, or a thrown error naming the step and what came back. */
function ok<T>(step: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) {
    throw new Error(step + ': ' + answer.response.status + ' ' + JSON.stringify(answer.error));
  }
  return answer.data;
}

export async function walkThrough(baseUrl: string, adminToken: string, slug: string) {
  const api = createClient<paths>({ baseUrl });
  const platform = { Authorization: 'Bearer ' + adminToken };
  const origin = 'https://acme.example';

  // 1. A tenant, with its first Federation API key (the README uses the CLI; this is its API).
  const tenant = ok(
    'create tenant',
    await api.POST('/admin/v1/tenants', {
      headers: platform,
      body: { slug, display_name: 'Acme', allowed_origins: [origin] },
    }),
  );
  // A second key, named, as the integration page makes them; the walk-through goes on with it.
  const key = ok(
    'create key',
    await api.POST('/admin/v1/tenants/{slug}/keys', {
      headers: platform,
      params: { path: { slug } },
      body: { name: 'Back end' },
    }),
  );
  const federation = { 'X-Service-Tenant-Key': key.tenant_key };

  // 2. Maria. 3. Ivan, whom she referred; the same call again; the cycle refused.
  const maria = ok(
    'upsert Maria',
    await api.POST('/federation/v1/users/upsert', {
      headers: federation,
      body: {
        external_id: 'u-1',
        full_name: 'Maria Ivanova',
        email: 'maria@example.com',
        email_verified: true,
      },
    }),
  );
  const ivanBody = {
    external_id: 'u-2',
    full_name: 'Ivan Petrov',
    referrer_user_id: maria.service_user_id,
  };
  const ivan = ok(
    'upsert Ivan',
    await api.POST('/federation/v1/users/upsert', { headers: federation, body: ivanBody }),
  );
  const ivanAgain = ok(
    'upsert Ivan again',
    await api.POST('/federation/v1/users/upsert', { headers: federation, body: ivanBody }),
  );
  const cycle = await api.POST('/federation/v1/users/upsert', {
    headers: federation,
    body: { external_id: 'u-1', referrer_user_id: ivan.service_user_id },
  });

  // 4. A lead of Ivan's and its order, then the same order again under the same key.
  const lead = ok(
    'lead',
    await api.POST('/federation/v1/leads', {
      headers: federation,
      body: {
        referrer_user_id: ivan.service_user_id,
        contact: { name: 'Olga Smirnova', email: 'olga@example.com' },
      },
    }),
  );
  const order = {
    headers: federation,
    params: { header: { 'Idempotency-Key': 'order-1001' } },
    body: {
      lead_id: lead.lead_id,
      amount_kopecks: 1250000,
      currency: 'RUB',
      external_order_id: 'order-1001',
    },
  };
  const conversion = ok('conversion', await api.POST('/federation/v1/conversions/register', order));
  const replay = await api.POST('/federation/v1/conversions/register', order);

  // 5. The Admin API: the tenant, a staff token, the pending bonuses, one approved, the log.
  const settings = ok(
    'tenant',
    await api.GET('/admin/v1/tenants/{slug}', { headers: platform, params: { path: { slug } } }),
  );
  const staff = ok(
    'staff token',
    await api.POST('/admin/v1/tenants/{slug}/staff-tokens', {
      headers: platform,
      params: { path: { slug } },
      body: { name: 'Alice (finance)', role: 'manager' },
    }),
  );
  const alice = { Authorization: 'Bearer ' + staff.token };
  const pending = ok(
    'pending bonuses',
    await api.GET('/admin/v1/tenants/{slug}/bonuses', {
      headers: alice,
      params: { path: { slug }, query: { status: 'pending' } },
    }),
  );
  const ivansBonus = pending.items.find((bonus) => bonus.user_id === ivan.service_user_id);
  const approved = ok(
    'approve',
    await api.POST('/admin/v1/tenants/{slug}/bonuses/{bonus_id}/approve', {
      headers: alice,
      params: { path: { slug, bonus_id: ivansBonus ? ivansBonus.bonus_id : 'none' } },
    }),
  );
  const audit = ok(
    'audit log',
    await api.GET('/admin/v1/tenants/{slug}/audit-log', {
      headers: alice,
      params: { path: { slug } },
    }),
  );
  const notOwner = await api.POST('/admin/v1/tenants/{slug}/staff-tokens', {
    headers: alice,
    params: { path: { slug } },
    body: { name: 'Mallory', role: 'owner' },
  });

  // 6. What Maria sees in the widgets: from the tenant's site, in German, from another site.
  const cabinet = (locale?: string, from = origin) =>
    api.GET('/embed/v1/data/cabinet/{user_id}', {
      params: {
        path: { user_id: maria.tenant_service_id },
        query: { tenant: slug, locale },
        header: { Origin: from },
      },
    });
  const seen = ok('cabinet', await cabinet());
  const seenInGerman = ok('cabinet de-DE', await cabinet('de-DE'));
  const refused = await cabinet(undefined, 'https://evil.example');

  return {
    tenant: {
      slug: tenant.slug,
      currency: tenant.currency,
      locale: tenant.locale,
      allowed_origins: tenant.allowed_origins,
      tenant_key: tenant.tenant_key.slice(0, 3),
    },
    key: { name: key.name, tenant_key: key.tenant_key.slice(0, 3) },
    maria: { action: maria.action, referrer_user_id: maria.referrer_user_id },
    ivan: { action: ivan.action, referred_by_maria: ivan.referrer_user_id === maria.service_user_id },
    ivanAgain: ivanAgain.action,
    cycle: { status: cycle.response.status, code: cycle.error ? cycle.error.code : null },
    lead: lead.status,
    conversion: conversion.cascaded_bonuses.map((bonus) => ({
      tier: bonus.tier,
      amount_kopecks: bonus.amount_kopecks,
      to: bonus.user_id === ivan.service_user_id ? 'ivan' : bonus.user_id === maria.service_user_id ? 'maria' : bonus.user_id,
    })),
    replay: {
      status: replay.response.status,
      replayed: replay.response.headers.get('Idempotent-Replayed'),
      same: replay.data ? replay.data.conversion_id === conversion.conversion_id : false,
    },
    settings: { slug: settings.slug, display_name: settings.display_name },
    staff: { role: staff.role, token: staff.token.slice(0, 4) },
    pending: {
      total: pending.pagination.total,
      amounts: pending.items.map((bonus) => bonus.amount_kopecks).sort((a, b) => a - b),
    },
    approved: { status: approved.status, is_ivans: approved.bonus_id === (ivansBonus && ivansBonus.bonus_id) },
    audit: audit.items.map((entry) => entry.action),
    notOwner: { status: notOwner.response.status, code: notOwner.error ? notOwner.error.code : null },
    cabinet: {
      id_surrogate: seen.user.id_surrogate,
      role_label: seen.user.badge.role_label,
      pending_kopecks: seen.kpi.pending_kopecks,
      pending_formatted: seen.kpi.pending_formatted,
      transactions: seen.transactions.map((t) => [t.tier, t.amount_kopecks, t.status]),
    },
    german: {
      role_label: seenInGerman.user.badge.role_label,
      pending_formatted: seenInGerman.kpi.pending_formatted,
      status_human: seenInGerman.transactions.map((t) => t.status_human),
    },
    refused: { status: refused.response.status, code: refused.error ? refused.error.code : null },
  };
}
`;

/**
 * A call the generated types must refuse: the tenant's bonuses without the `{slug}` its path
 * names. It compiled against the document that left `slug` out of 95 operations.
 */
const WITHOUT_SLUG = `
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export const call = () =>
  createClient<paths>({ baseUrl: 'http://127.0.0.1' }).GET('/admin/v1/tenants/{slug}/bonuses', {
    params: { query: { status: 'pending', page: 1, page_size: 20 } },
  });
`;

/** The example of README.md, "Generated clients", importing the types generated here. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Generated clients'));
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!example) throw new Error('README.md, "Generated clients": no ts example');
  return example.replace("from './referral-api'", "from './schema'");
}

/** What the client program may use: the ES library and fetch's types, nothing of Node's. */
function compilerOptions(outDir: string): ts.CompilerOptions {
  return {
    strict: true,
    noUnusedLocals: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    // The temporary directory is outside the project: openapi-fetch is the project's own copy.
    paths: { 'openapi-fetch': [join(ROOT, 'node_modules', 'openapi-fetch', 'dist', 'index.d.ts')] },
    outDir,
  };
}

/**
 * Type-checks `files` of `dir` as one program: each file's errors (none: it type-checks). The
 * files that have none are emitted as JavaScript beside them.
 */
function typeCheck(dir: string, files: string[]): Record<string, string[]> {
  const paths = files.map((file) => join(dir, file));
  const program = ts.createProgram(paths, compilerOptions(dir));
  const errors: Record<string, string[]> = Object.fromEntries(files.map((file) => [file, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? d.file.fileName.slice(dir.length + 1) : '(options)';
    const line = d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : 0;
    (errors[file] ??= []).push(`${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  }
  for (const [i, file] of files.entries()) {
    if (!errors[file].length) program.emit(program.getSourceFile(paths[i]));
  }
  return errors;
}

/**
 * `node -e script args…` from `dir`, the project's packages on its path: its stdout, or a failure
 * with its stderr.
 */
function runNode(dir: string, script: string, args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ['-e', script, ...args],
      {
        cwd: dir,
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
      },
      (error, stdout, stderr) => (error ? fail(new Error(stderr || error.message)) : done(stdout)),
    );
  });
}

/**
 * openapi-typescript's programmatic API (`openapiTS` + `astToString`) on `openapi.json`, into
 * `schema.ts`. In a child process: its CommonJS build requires an ES module, which Node loads
 * and Jest's module system does not.
 */
const GENERATE = `
const { default: openapiTS, astToString } = require('openapi-typescript');
const { readFileSync, writeFileSync } = require('node:fs');
openapiTS(JSON.parse(readFileSync('openapi.json', 'utf8')))
  .then((ast) => writeFileSync('schema.ts', astToString(ast)))
  .catch((error) => { console.error(error); process.exit(1); });
`;

/** Runs the compiled client; resolves with what `walkThrough` returned. */
async function runClient(dir: string, args: string[]): Promise<Record<string, unknown>> {
  const script =
    "require('./client.js').walkThrough(...process.argv.slice(1))" +
    '.then((seen) => console.log(JSON.stringify(seen)))' +
    '.catch((error) => { console.error(error); process.exit(1); });';
  return JSON.parse(await runNode(dir, script, args)) as Record<string, unknown>;
}

describe('a client generated from the OpenAPI document (openapi-typescript + openapi-fetch)', () => {
  let t: TestApp;
  let server: { close: () => void };
  let baseUrl: string;
  let dir: string;
  let errors: Record<string, string[]>;

  beforeAll(async () => {
    t = await createTestApp();
    const listening = t.app.getHttpServer().listen(0, '127.0.0.1');
    await new Promise((done) => listening.once('listening', done));
    server = listening;
    baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    const res = await t.http().get('/docs/openapi.json');
    expect(res.status).toBe(200);
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(res.body));
    await runNode(dir, GENERATE, []);
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    writeFileSync(join(dir, 'without-slug.ts'), WITHOUT_SLUG);
    writeFileSync(join(dir, 'readme.ts'), readmeExample());
    errors = typeCheck(dir, ['schema.ts', 'client.ts', 'without-slug.ts', 'readme.ts']);
  });
  afterAll(async () => {
    server?.close();
    await t?.close();
    if (dir && !process.env.OPENAPI_CLIENT_KEEP) rmSync(dir, { recursive: true, force: true });
  });

  it('generates types that type-check', () => {
    expect(errors['schema.ts']).toEqual([]);
    expect(errors['(options)']).toBeUndefined();
  });

  it('type-checks the example of README.md', () => {
    expect(errors['readme.ts']).toEqual([]);
  });

  it('refuses, at compile time, a call that leaves out a path parameter', () => {
    expect(errors['without-slug.ts']).toEqual([
      expect.stringMatching(/Property 'path' is missing/),
    ]);
  });

  it('type-checks the client program against the generated types, then runs the README walk-through', async () => {
    expect(errors['client.ts']).toEqual([]);
    const slug = `acme-${Date.now().toString(36)}`;
    const seen = await runClient(dir, [baseUrl, t.adminToken, slug]);
    expect(seen).toEqual({
      tenant: {
        slug,
        currency: 'RUB',
        locale: 'ru-RU',
        allowed_origins: ['https://acme.example'],
        tenant_key: 'tk_',
      },
      key: { name: 'Back end', tenant_key: 'tk_' },
      maria: { action: 'created', referrer_user_id: null },
      ivan: { action: 'created', referred_by_maria: true },
      ivanAgain: 'unchanged',
      cycle: { status: 422, code: 'referral_cycle' },
      lead: 'new',
      conversion: [
        { tier: 'referrer', amount_kopecks: 125000, to: 'ivan' },
        { tier: 'upline_1', amount_kopecks: 37500, to: 'maria' },
      ],
      replay: { status: 200, replayed: 'true', same: true },
      settings: { slug, display_name: 'Acme' },
      staff: { role: 'manager', token: 'stf_' },
      pending: { total: 2, amounts: [37500, 125000] },
      approved: { status: 'approved', is_ivans: true },
      audit: expect.arrayContaining(['staff_token.created', 'bonus.approved']),
      notOwner: { status: 403, code: 'forbidden' },
      cabinet: {
        id_surrogate: expect.stringMatching(/^mbr_/),
        role_label: 'Партнёр',
        pending_kopecks: 37500,
        pending_formatted: expect.stringMatching(/^375,00\s₽$/),
        transactions: [['upline_1', 37500, 'pending']],
      },
      german: {
        role_label: 'Partner',
        pending_formatted: expect.stringMatching(/^375,00\sRUB$/),
        status_human: ['Pending'],
      },
      refused: { status: 403, code: 'origin_not_allowed' },
    });
  });
});
