import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { orgCsrf, orgSignIn } from '../../utils/pages-http';
import { createTestApp, type TestApp } from '../../utils/create-test-app';

/**
 * `POST …/program/backtest` (docs/money.md §2, "Backtest"): what it replays (the target's
 * conversions of the period, reversed ones and other currencies left out), who may ask, and the
 * refusals: 400 for a bad body or period, 404 for another tenant's group or offer.
 */
jest.setTimeout(60_000);

const today = () => new Date().toISOString().slice(0, 10);
const referrerOnly = (percent_bp: number) => ({ tiers: [{ tier: 'referrer', percent_bp }] });

describe('program backtest', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t, { program: referrerOnly(1000) });
  });

  const backtest = (body: unknown, token = t.adminToken, slug = tenant.slug) =>
    adminApi(t, token).raw('post', `/admin/v1/tenants/${slug}/program/backtest`, body);

  it('replays the target’s conversions of the period and leaves out reversed ones and other currencies', async () => {
    const [upline, referrer] = await createChain(t, tenant.key, 2);
    const sell = async (n: number, amount: number, currency = 'RUB', offer_id?: string) =>
      registerConversion(t, tenant.key, {
        lead_id: await createLead(t, tenant.key, referrer.serviceUserId, {
          contact: { name: 'C', email: `b${n}@example.org` },
          ...(offer_id ? { offer_id } : {}),
        }),
        amount_kopecks: amount,
        external_order_id: `b-${n}`,
        currency,
      });
    await sell(1, 100_000);
    const refunded = await sell(2, 50_000);
    await adminApi(t, t.adminToken).reverseConversion(tenant.slug, refunded.conversion_id, {
      reason: 'refund',
    });
    await sell(3, 70_000, 'USD');
    const offer = await adminApi(t, t.adminToken).createOffer(tenant.slug, {
      name: 'Own',
      program: referrerOnly(5000),
    });
    await sell(4, 10_000, 'RUB', offer.body.offer_id);

    const draft = {
      tiers: [
        { tier: 'referrer', percent_bp: 1500 },
        { tier: 'upline_1', fixed_kopecks: 700 },
      ],
    };
    const res = await backtest({ target: 'default', program: draft, from: today(), to: today() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      target: 'default',
      from: today(),
      to: today(),
      currency: 'RUB',
      conversions: 1,
      skipped: 1,
      actual: { commission_kopecks: 10_000, by_tier: { referrer: 10_000 } },
      draft: { commission_kopecks: 15_700, by_tier: { referrer: 15_000, upline_1: 700 } },
      delta_kopecks: 5_700,
      partners: [
        { user_id: referrer.serviceUserId, actual_kopecks: 10_000, draft_kopecks: 15_000 },
        { user_id: upline.serviceUserId, actual_kopecks: 0, draft_kopecks: 700 },
      ],
    });

    // The offer's own program governs its conversion only.
    const byOffer = await backtest({
      target: { offer_id: offer.body.offer_id },
      program: referrerOnly(2000),
      from: today(),
      to: today(),
    });
    expect(byOffer.body).toMatchObject({
      conversions: 1,
      actual: { commission_kopecks: 5_000 },
      draft: { commission_kopecks: 2_000 },
      delta_kopecks: -3_000,
    });
    // A period without conversions replays nothing.
    const empty = await backtest({
      target: 'default',
      program: draft,
      from: '2020-01-01',
      to: '2020-12-31',
    });
    expect(empty.body).toMatchObject({ conversions: 0, delta_kopecks: 0, partners: [] });
  });

  it('lets viewers ask, and refuses bad bodies, long periods and other tenants’ groups and offers', async () => {
    const viewer = await createStaffToken(t, tenant.slug, 'viewer');
    const ok = { target: 'default', program: referrerOnly(100), from: today(), to: today() };
    expect((await backtest(ok, viewer)).status).toBe(200);

    const other = await createTenant(t);
    const theirs = await createStaffToken(t, other.slug, 'owner');
    expect([403, 404]).toContain((await backtest(ok, theirs)).status);
    const otherOffer = await adminApi(t, t.adminToken).createOffer(other.slug, { name: 'X' });
    const offerRes = await backtest({ ...ok, target: { offer_id: otherOffer.body.offer_id } });
    expect(offerRes.status).toBe(404);
    expect(offerRes.body.code).toBe('offer_not_found');
    const groupRes = await backtest({ ...ok, target: { group_id: 'grp_nope' } });
    expect(groupRes.status).toBe(404);
    expect(groupRes.body.code).toBe('group_not_found');

    const refusals: [unknown, string][] = [
      [{ ...ok, target: 'everything' }, 'target'],
      [{ ...ok, target: { group_id: 1 } }, 'target'],
      [{ ...ok, target: { group_id: 'a', offer_id: 'b' } }, 'target'],
      [{ ...ok, from: '2026-02-30' }, 'from'],
      [{ ...ok, from: '2026-12-02', to: '2026-12-01' }, 'to'],
      [{ ...ok, from: '2025-01-01', to: '2026-01-02' }, 'to'],
      [{ ...ok, program: { tiers: [{ tier: 'upline_1', percent_bp: 100 }] } }, 'program'],
      [{ ...ok, program: undefined }, 'program'],
    ];
    for (const [body, field] of refusals) {
      const res = await backtest(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field).join(' ')).toContain(field);
    }
  });

  it('shows the form’s program backtested over 30 and 90 days beside the preview, and after Preview', async () => {
    const [, referrer] = await createChain(t, tenant.key, 2);
    await registerConversion(t, tenant.key, {
      lead_id: await createLead(t, tenant.key, referrer.serviceUserId),
      amount_kopecks: 100_000,
      external_order_id: 'console-1',
    });
    const cookie = await orgSignIn(t.http, await createStaffToken(t, tenant.slug, 'manager'));
    const page = await t.http().get(`/org/${tenant.slug}/program?lang=en`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    // The saved program against itself: nothing changes.
    expect(page.text).toContain('data-backtest');
    expect(page.text).toMatch(/data-backtest-delta="30">[^<]*0\.00/);
    expect(page.text).toMatch(/data-backtest-delta="90">[^<]*0\.00/);

    // Preview a richer program: the panel says what it would have paid more.
    const preview = await t
      .http()
      .post(`/org/${tenant.slug}/program?lang=en`)
      .set('Cookie', cookie)
      .set('Origin', 'http://localhost:3000')
      .type('form')
      .send({
        _csrf: await orgCsrf(t.http, cookie, tenant.slug),
        intent: 'preview',
        lead_bonus: '0',
        grace_period_hours: '336',
        p0_percent_0: '15',
        p0_fixed_0: '',
        amount: '1000',
      });
    expect(preview.status).toBe(200);
    expect(preview.text).toMatch(/data-backtest-delta="30">\+[^<]*50\.00/);
    expect(preview.text).toContain(`/org/${tenant.slug}/partners/${referrer.serviceUserId}`);
  });
});
