import { createLead, registerConversion } from '../../factories/money.factory';
import {
  admin,
  approveBonus,
  invariantViolations,
  runPayouts,
} from '../../factories/payouts.factory';
import { createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { HttpsReceiver, startHttpsReceiver } from '../../utils/https-receiver';
import { newRunId } from '../../utils/test-env';

/**
 * A run writes its `payout.created` events set-wise (docs/payouts.md §9): the stored envelopes
 * must be the bytes `JSON.stringify` of the envelope would be, one per payout, in payout order,
 * and the webhook engine must deliver them like any other event (real HTTPS receiver, real Bull).
 */
jest.setTimeout(90_000);

describe('Payouts: a run’s events through the outbox and webhooks (e2e)', () => {
  let t: TestApp;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    t = await createTestApp({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_CA_FILE: receiver.caFile,
      QUEUE_PREFIX: `payev_${newRunId()}`,
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('one payout.created per payout, byte for byte as emitMany writes it, delivered', async () => {
    const tenant = await createTenant(t, {
      program: { tiers: [{ tier: 'referrer', percent_bp: 1000 }] },
      payouts: { minimum_kopecks: 1 },
    });
    const put = await t
      .http()
      .put(`/admin/v1/tenants/${tenant.slug}/webhook`)
      .set(admin(t))
      .send({ url: `${receiver.url}/payouts`, events: ['payout.created'] });
    expect(put.status).toBe(200);

    // Three partners with RUB balances, one of them with a USD balance too: four payouts.
    const sales: [number, string][][] = [
      [[120000, 'RUB']],
      [
        [50000, 'RUB'],
        [70000, 'USD'],
      ],
      [
        [10000, 'RUB'],
        [20000, 'RUB'],
      ],
    ];
    for (const [m, partnerSales] of sales.entries()) {
      const partner = await upsertUser(t, tenant.key, { full_name: `Партнёр "${m}"` });
      for (const [s, [amount, currency]] of partnerSales.entries()) {
        const lead = await createLead(t, tenant.key, partner.serviceUserId, {
          contact: { name: 'Buyer', email: `b${m}-${s}@example.org` },
        });
        const conv = await registerConversion(t, tenant.key, {
          lead_id: lead,
          amount_kopecks: amount,
          currency,
          external_order_id: `o-${m}-${s}`,
        });
        await approveBonus(t, tenant.slug, conv.cascaded_bonuses[0].bonus_id);
      }
    }

    const run = await runPayouts(t, tenant.slug);
    expect(run).toMatchObject({
      payouts_count: 4,
      total_kopecks: 27000,
      currency_totals: { RUB: 20000, USD: 7000 },
    });

    const payouts: {
      id: string;
      service_user_id: string;
      currency: string;
      amount_kopecks: string;
    }[] = await t.db.query(
      `SELECT id, service_user_id, currency, amount_kopecks FROM payouts
        WHERE tenant_id = $1 AND run_id = $2 ORDER BY id`,
      [tenant.orgId, run.run_id],
    );
    expect(payouts).toHaveLength(4);
    const events: { id: string; occurred_at: Date; body: string }[] = await t.db.query(
      `SELECT id, occurred_at, body FROM events WHERE tenant_id = $1 AND event_type = 'payout.created'
        ORDER BY occurred_at, id`,
      [tenant.orgId],
    );
    // In payout order, each body exactly what JSON.stringify makes of the envelope.
    expect(events).toHaveLength(4);
    events.forEach((e, i) => {
      const p = payouts[i];
      expect(e.body).toBe(
        JSON.stringify({
          event_type: 'payout.created',
          event_id: e.id,
          occurred_at: e.occurred_at.toISOString(),
          payload: {
            payout_id: p.id,
            user_id: p.service_user_id,
            currency: p.currency,
            amount_kopecks: Number(p.amount_kopecks),
          },
        }),
      );
      expect(e.id).toMatch(/^evt_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    });

    // The engine delivers them: the exact stored bytes, one request each.
    const received = await receiver.waitFor(4, 30_000);
    expect(received.map((r) => r.body.toString('utf8')).sort()).toEqual(
      events.map((e) => e.body).sort(),
    );
    // The run's ids are made in SQL (docs/architecture.md, "Ids"): ULIDs like any other, and the
    // deliveries (made from the ids the outbox listener got in Node) name exactly those events.
    for (const p of payouts) expect(p.id).toMatch(/^pay_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    const deliveries: { event_id: string; status: string }[] = await t.db.query(
      `SELECT event_id, status FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY event_id`,
      [tenant.orgId],
    );
    expect(deliveries.map((d) => d.event_id)).toEqual(events.map((e) => e.id));

    // Nothing left to pay: a second run has no payout and no event.
    expect(await runPayouts(t, tenant.slug)).toMatchObject({ payouts_count: 0 });
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM events WHERE tenant_id = $1 AND event_type = 'payout.created'`,
      [tenant.orgId],
    );
    expect(n).toBe(4);
    expect(await invariantViolations(t, tenant.orgId)).toEqual([]);
  });
});
