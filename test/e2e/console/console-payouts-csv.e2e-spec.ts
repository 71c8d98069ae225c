import { createLead, registerConversion } from '../../factories/money.factory';
import { admin, approveBonus, runPayouts } from '../../factories/payouts.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { orgSignIn } from '../../utils/pages-http';

/**
 * The CSV links of the console's payouts page (docs/console.md): the payouts list's link keeps
 * its filters and its file holds exactly the payouts the list shows; the runs list's file holds
 * every run the list shows, with the same counts; a viewer may download both, another tenant's
 * staff may not (403).
 */

describe('console payouts CSV links', () => {
  let t: TestApp;
  let org: TestTenant;
  let x: UpsertedMember;
  let viewer: string;
  let stranger: string;
  const runs: string[] = [];

  const get = (path: string, cookie: string) => t.http().get(path).set('Cookie', cookie);
  /** The rows of a CSV as objects by its header. */
  const rows = (text: string) => {
    const [head, ...lines] = text.trim().split('\r\n');
    const names = head.split(',');
    return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i], v])));
  };
  const shown = (html: string, attr: string) =>
    [...html.matchAll(new RegExp(`${attr}="([^"]+)"`, 'g'))].map((m) => m[1]).sort();
  const href = (html: string, link: string) =>
    new RegExp(`<a href="([^"]*)" download(?:="")? data-link="${link}"`)
      .exec(html)?.[1]
      ?.replace(/&amp;/g, '&');

  async function convert(referrer: UpsertedMember, amount: number, order: string) {
    const lead = await createLead(t, org.key, referrer.serviceUserId);
    const c = await registerConversion(t, org.key, {
      lead_id: lead,
      amount_kopecks: amount,
      external_order_id: order,
    });
    for (const b of c.cascaded_bonuses) await approveBonus(t, org.slug, b.bonus_id);
  }

  beforeAll(async () => {
    t = await createTestApp();
    org = await createTenant(t, { locale: 'en-US', payouts: { minimum_kopecks: 1000 } });
    const [, mid] = await createChain(t, org.key, 2);
    x = await upsertUser(t, org.key, { full_name: 'Olga X', referrer_user_id: mid.serviceUserId });
    const y = await upsertUser(t, org.key, {
      full_name: 'Pavel Y',
      referrer_user_id: mid.serviceUserId,
    });
    await convert(x, 100_000, 'o-1');
    await convert(y, 200_000, 'o-2');
    runs.push((await runPayouts(t, org.slug)).run_id);
    await convert(x, 300_000, 'o-3');
    runs.push((await runPayouts(t, org.slug)).run_id);
    // One payout of the first run paid, so the status filter has something to leave out.
    const [first] = await t.db.query(
      `SELECT id FROM payouts WHERE tenant_id = $1 AND run_id = $2 ORDER BY id LIMIT 1`,
      [org.orgId, runs[0]],
    );
    const paid = await t
      .http()
      .post(`/admin/v1/tenants/${org.slug}/payouts/${first.id}/paid`)
      .set(admin(t))
      .send({ reference: 'BANK-1' });
    expect(paid.status).toBe(200);
    viewer = await orgSignIn(t.http, await createStaffToken(t, org.slug, 'viewer'));
    const other = await createTenant(t);
    stranger = await orgSignIn(t.http, await createStaffToken(t, other.slug, 'owner'));
  });
  afterAll(() => t.close());

  it("the payouts CSV has the list's filters and exactly its rows", async () => {
    const cases = [
      '',
      `run=${runs[0]}`,
      `run=${runs[0]}&status=pending`,
      'status=paid',
      `user=${x.serviceUserId}`,
      `status=pending&user=${x.memberId}`,
    ];
    const seen = new Set<string>();
    for (const query of cases) {
      const page = await get(`/org/${org.slug}/payouts?${query}`, viewer);
      expect(page.status).toBe(200);
      const link = href(page.text, 'payouts-csv');
      expect(link).toBe(`/org/${org.slug}/payouts.csv${query ? `?${query}` : ''}`);
      const csv = await get(link!, viewer);
      expect([query, csv.status]).toEqual([query, 200]);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.headers['content-disposition']).toBe(
        `attachment; filename="payouts-${org.slug}.csv"`,
      );
      expect(csv.headers['cache-control']).toBe('no-store');
      const ids = rows(csv.text).map((r) => r.payout_id);
      expect([query, ids.sort()]).toEqual([query, shown(page.text, 'data-payout')]);
      expect(ids.length).toBeGreaterThan(0);
      seen.add(ids.join());
    }
    // The filters left rows out: the files differ.
    expect(seen.size).toBeGreaterThan(3);
    const paid = rows((await get(`/org/${org.slug}/payouts.csv?status=paid`, viewer)).text);
    expect(paid.map((r) => [r.status, r.reference])).toEqual([['paid', 'BANK-1']]);
    // A refused filter is the page filter's page, saying which, never a file.
    const bad = await get(`/org/${org.slug}/payouts.csv?status=lost`, viewer);
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^text\/html/);
    expect(bad.text).toContain('status: ');
  });

  it('the runs CSV holds every run of the list with its counts', async () => {
    const page = await get(`/org/${org.slug}/payouts`, viewer);
    expect(href(page.text, 'runs-csv')).toBe(`/org/${org.slug}/payout-runs.csv`);
    const csv = await get(`/org/${org.slug}/payout-runs.csv`, viewer);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text.split('\r\n')[0]).toBe(
      'run_id,trigger,payouts_count,total_kopecks,currency_totals,pending,paid,failed,canceled,created_at',
    );
    const lines = rows(csv.text.replace(/"\{[^}]*\}"/g, '{}'));
    expect(lines.map((r) => r.run_id)).toEqual(runs);
    expect(shown(page.text, 'data-run')).toEqual([...runs].sort());
    const db = await t.db.query(
      `SELECT r.id, r.payouts_count, r.total_kopecks,
              count(*) FILTER (WHERE p.status = 'pending') AS pending,
              count(*) FILTER (WHERE p.status = 'paid') AS paid
         FROM payout_runs r JOIN payouts p ON p.tenant_id = r.tenant_id AND p.run_id = r.id
        WHERE r.tenant_id = $1 GROUP BY r.id, r.payouts_count, r.total_kopecks ORDER BY r.id`,
      [org.orgId],
    );
    for (const run of db) {
      const line = lines.find((r) => r.run_id === run.id)!;
      expect(line).toMatchObject({
        payouts_count: String(run.payouts_count),
        total_kopecks: String(run.total_kopecks),
        pending: String(run.pending),
        paid: String(run.paid),
        failed: '0',
        canceled: '0',
      });
      expect(page.text).toContain(`data-run-count="${run.id}">${run.payouts_count}<`);
    }
    expect(lines.map((r) => r.paid)).toEqual(['1', '0']);
  });

  it("another tenant's staff may not download them", async () => {
    for (const path of ['payouts.csv', `payouts.csv?run=${runs[0]}`, 'payout-runs.csv']) {
      const res = await get(`/org/${org.slug}/${path}`, stranger);
      expect([path, res.status]).toEqual([path, 403]);
      expect(res.text).not.toContain(runs[0]);
    }
  });
});
