// A fuzz battery generated from the OpenAPI document (README.md, "Tests"): every operation the document
// lists, with valid credentials for its security so the requests get past authentication, and
// each of its path parameters, query parameters, headers and body fields (nested ones too) in
// turn given hostile values: NUL and other control characters, unpaired surrogates, `null`,
// wrong types, arrays for scalars, huge strings, deep nesting, numbers out of range, and real ids
// of another tenant (B) sent with tenant A's credentials. A fixed sweep covers every target with
// the core values; FUZZ_RUNS more requests per operation (fast-check) draw targets and values at
// random, several at once. No answer may be a 5xx; every 4xx of a JSON route is a problem
// document; no answer carries a stack, SQL, or anything of tenant B.
//
//   FUZZ_RUNS=300 npx jest test/e2e/service/fuzz-openapi.e2e-spec.ts    (a longer run)
//   FUZZ_SEED=… FUZZ_ONLY='/embed/v1/data/leads' …               (repeat one, for one operation)
//   FUZZ_DUMP_OPENAPI=/tmp/openapi.json …                         (keep the document it read)
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import request, { type Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { coreValues, valueArbitrary } from '../../utils/fuzz/hostile-values';
import { Document, Op, operations } from '../../utils/fuzz/openapi-doc';
import { Mutation, Session, build, orgSession, popupSession } from '../../utils/fuzz/requests';
import { Finding, judge, safeDecode } from '../../utils/fuzz/verdict';
import { buildWorld, idsOf } from '../../utils/fuzz/world';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
/** Only the operations whose `METHOD /path` contains this (to repeat a finding). */
const ONLY = process.env.FUZZ_ONLY;
jest.setTimeout(240_000 + RUNS * 90 * 40);

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
