import { createLead, registerConversion } from '../../factories/money.factory';
import { admin, approveBonus, runPayouts } from '../../factories/payouts.factory';
import { createStaffToken, createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/** What a payout route refuses, and that a refused request changes nothing. */
describe('Payouts: bad input (e2e)', () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let payoutOfA: string;
  let runOfA: string;

  beforeAll(async () => {
    t = await createTestApp();
    [a, b] = [
      await createTenant(t, { payouts: { minimum_kopecks: 1 } }),
      await createTenant(t, { payouts: { minimum_kopecks: 1 } }),
    ];
    const partner = await upsertUser(t, a.key);
    for (const order of ['o-1', 'o-2']) {
      const lead = await createLead(t, a.key, partner.serviceUserId, {
        contact: { name: 'Buyer', email: `${order}@example.org` },
      });
      const conv = await registerConversion(t, a.key, {
        lead_id: lead,
        amount_kopecks: 50000,
        external_order_id: order,
      });
      await approveBonus(t, a.slug, conv.cascaded_bonuses[0].bonus_id);
    }
    runOfA = (await runPayouts(t, a.slug)).run_id;
    const [row]: { id: string }[] = await t.db.query(
      `SELECT id FROM payouts WHERE tenant_id = $1`,
      [a.orgId],
    );
    payoutOfA = row.id;
  });
  afterAll(() => t.close());

  it("another tenant's payout and run are not found, by staff or back end", async () => {
    const staffOfB = await createStaffToken(t, b.slug, 'owner');
    const asB = { Authorization: `Bearer ${staffOfB}` };
    const tries = [
      t
        .http()
        .post(`/admin/v1/tenants/${b.slug}/payouts/${payoutOfA}/paid`)
        .set(asB)
        .send({ reference: 'X' }),
      t.http().get(`/admin/v1/tenants/${b.slug}/payouts/${payoutOfA}`).set(asB),
      t
        .http()
        .post(`/federation/v1/payouts/${payoutOfA}/paid`)
        .set('X-Service-Tenant-Key', b.key)
        .send({ reference: 'X' }),
      t
        .http()
        .post(`/federation/v1/payouts/${payoutOfA}/failed`)
        .set('X-Service-Tenant-Key', b.key)
        .send({ reason: 'X' }),
    ];
    for (const res of await Promise.all(tries)) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('payout_not_found');
    }
    const csv = await t
      .http()
      .get(`/admin/v1/tenants/${b.slug}/payouts/runs/${runOfA}.csv`)
      .set(asB);
    expect(csv.status).toBe(404);
    expect(csv.body.code).toBe('payout_run_not_found');
    // B's staff on A's path: 403, and the payout is untouched.
    const cross = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/${payoutOfA}/paid`)
      .set(asB)
      .send({ reference: 'X' });
    expect(cross.status).toBe(403);
    const [row]: { status: string }[] = await t.db.query(
      `SELECT status FROM payouts WHERE id = $1`,
      [payoutOfA],
    );
    expect(row.status).toBe('pending');
  });

  it('refuses bodies and roles the contract refuses', async () => {
    const viewer = await createStaffToken(t, a.slug, 'viewer');
    const asViewer = { Authorization: `Bearer ${viewer}` };
    expect(
      (await t.http().post(`/admin/v1/tenants/${a.slug}/payouts/runs`).set(asViewer)).status,
    ).toBe(403);
    const noRef = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/${payoutOfA}/paid`)
      .set(admin(t))
      .send({});
    expect(noRef.status).toBe(400);
    expect(noRef.body.code).toBe('validation_failed');
    const extra = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/${payoutOfA}/paid`)
      .set(admin(t))
      .send({ reference: 'X', amount_kopecks: 1 });
    expect(extra.status).toBe(400);
    const list = await t
      .http()
      .get(`/admin/v1/tenants/${a.slug}/payouts?status=lost`)
      .set(admin(t));
    expect(list.status).toBe(400);
    const json = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/runs/${runOfA}/settle`)
      .set(admin(t))
      .send({ csv: 'x' });
    expect(json.status).toBe(415);
    for (const payouts of [
      { schedule: 'weekly:8' },
      { minimum_kopecks: 0 },
      { hold_days: -1 },
      { schedule: 'daily' },
      { require_details: 'yes' },
    ]) {
      const res = await t
        .http()
        .patch(`/admin/v1/tenants/${a.slug}`)
        .set(admin(t))
        .send({ payouts });
      expect(res.status).toBe(400);
    }
    const ok = await t
      .http()
      .patch(`/admin/v1/tenants/${a.slug}`)
      .set(admin(t))
      .send({ payouts: { schedule: 'monthly:28' } });
    expect(ok.status).toBe(200);
    expect(ok.body.payouts).toEqual({
      minimum_kopecks: 1,
      schedule: 'monthly:28',
      hold_days: 0,
      require_details: false,
    });
  });

  it('a CSV that is not the run file is refused whole, naming each line', async () => {
    const res = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/runs/${runOfA}/settle`)
      .set(admin(t))
      .set('Content-Type', 'text/csv')
      .send(
        [
          'payout_id,amount_kopecks,reference',
          `${payoutOfA},10000,OK-1`,
          'pay_01ARZ3NDEKTSV4RRFFQ69G5FAV,5000,R',
          `${payoutOfA},10000,DUP`,
        ].join('\n'),
      );
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['line 3', 'line 4']);
    const [row]: { status: string }[] = await t.db.query(
      `SELECT status FROM payouts WHERE id = $1`,
      [payoutOfA],
    );
    expect(row.status).toBe('pending');
    const noRefColumn = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/runs/${runOfA}/settle`)
      .set(admin(t))
      .set('Content-Type', 'text/csv')
      .send(`payout_id,amount_kopecks\n${payoutOfA},10000\n`);
    expect(noRefColumn.status).toBe(400);
    expect(noRefColumn.body.errors[0].message).toMatch(/reference/);
  });

  it('a failed payout cannot be marked paid (409) and its money is available again', async () => {
    const failed = await t
      .http()
      .post(`/federation/v1/payouts/${payoutOfA}/failed`)
      .set('X-Service-Tenant-Key', a.key)
      .send({ reason: 'account closed' });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'failed', failure_reason: 'account closed' });
    for (const [path, body] of [
      ['paid', { reference: 'late' }],
      ['failed', { reason: 'again' }],
      ['cancel', {}],
    ] as const) {
      const res = await t
        .http()
        .post(`/admin/v1/tenants/${a.slug}/payouts/${payoutOfA}/${path}`)
        .set(admin(t))
        .send(body);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_transition');
    }
    const [balance]: { available_kopecks: string; in_payout_kopecks: string }[] = await t.db.query(
      `SELECT available_kopecks, in_payout_kopecks FROM ledger_balances WHERE tenant_id = $1`,
      [a.orgId],
    );
    expect(balance).toEqual({ available_kopecks: '10000', in_payout_kopecks: '0' });
    // The next run pays the returned bonuses again.
    expect((await runPayouts(t, a.slug)).total_kopecks).toBe(10000);
  });
});
