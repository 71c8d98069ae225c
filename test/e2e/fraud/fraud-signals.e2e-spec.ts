import { setTimeout as sleep } from 'node:timers/promises';
import { eventsOf } from '../../factories/money.factory';
import { clickRef, createLink, federation } from '../../factories/fraud.factory';
import { createStaffToken, createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * docs/fraud.md, "Risk signals": each signal fires on its case and stays silent on the nearest
 * honest one. A signal shows as the `review` of the bonuses it concerns (a lead bonus for lead
 * signals, the cascade for conversion signals), never as a refusal.
 */
jest.setTimeout(90_000);

const PROGRAM = {
  lead_bonus_kopecks: 1000,
  tiers: [
    { tier: 'referrer', percent_bp: 1000 },
    { tier: 'upline_1', percent_bp: 300 },
  ],
};

interface Review {
  status: string;
  signals: { code: string; detail: string }[];
}

describe('fraud: risk signals', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const tenantWith = (fraud: Record<string, unknown> = {}) =>
    createTenant(t, { program: PROGRAM, fraud });

  /** Registers a lead; answers the review of its lead bonus. */
  async function leadReview(
    tenant: TestTenant,
    referrer: UpsertedMember,
    contact: Record<string, unknown>,
    client?: Record<string, unknown>,
  ): Promise<Review | null> {
    const res = await federation(t, tenant, '/federation/v1/leads', {
      referrer_user_id: referrer.serviceUserId,
      contact: { name: 'Customer', ...contact },
      ...(client ? { client } : {}),
    });
    expect(res.status).toBe(200);
    const [bonus] = await t.db.query(
      `SELECT review FROM bonuses WHERE tenant_id = (SELECT id FROM tenants WHERE slug = $1)
          AND source_type = 'lead' AND source_id = $2`,
      [tenant.slug, res.body.lead_id],
    );
    return bonus.review;
  }
  const codes = (review: Review | null) => review?.signals.map((s) => s.code) ?? [];

  describe('self_referral', () => {
    it("fires on an upline's email; silent on the same email in another tenant", async () => {
      const tenant = await tenantWith();
      const upline = await upsertUser(t, tenant.key, { email: 'boss@ring.example' });
      const partner = await upsertUser(t, tenant.key, {
        email: 'partner@ring.example',
        referrer_user_id: upline.serviceUserId,
      });
      const review = await leadReview(tenant, partner, { email: 'BOSS@ring.example' });
      expect(review).toMatchObject({ status: 'flagged' });
      expect(codes(review)).toEqual(['self_referral']);
      expect(review!.signals[0].detail).toMatch(/upline 1/);

      const other = await tenantWith();
      await upsertUser(t, other.key, { email: 'someone@else.example' });
      const alone = await upsertUser(t, other.key, { email: 'p2@else.example' });
      expect(await leadReview(other, alone, { email: 'boss@ring.example' })).toBeNull();
    });

    it('sees through +tags, Gmail dots and googlemail.com (issue #32)', async () => {
      const tenant = await tenantWith();
      const upline = await upsertUser(t, tenant.key, { email: 'ivan.petrov@gmail.com' });
      const partner = await upsertUser(t, tenant.key, {
        email: 'Olga.S+work@outlook.com',
        referrer_user_id: upline.serviceUserId,
      });
      for (const email of [
        'ivanpetrov+shop@gmail.com',
        'I.van.Petrov@googlemail.com',
        'IVANPETROV@GMAIL.COM',
      ]) {
        const review = await leadReview(tenant, partner, { email });
        expect({ email, codes: codes(review) }).toEqual({ email, codes: ['self_referral'] });
      }
      // The referrer's own mailbox, however written, stays a refusal (422).
      for (const email of ['olga.s@outlook.com', 'OLGA.S+promo@outlook.com']) {
        const res = await federation(t, tenant, '/federation/v1/leads', {
          referrer_user_id: partner.serviceUserId,
          contact: { name: 'Me', email },
        });
        expect({ email, status: res.status, code: res.body.code }).toEqual({
          email,
          status: 422,
          code: 'self_referral',
        });
      }
      // Nearest honest cases: dots count outside Gmail; another Gmail mailbox.
      expect(await leadReview(tenant, partner, { email: 'olgas@outlook.com' })).toBeNull();
      expect(await leadReview(tenant, partner, { email: 'ivan.petrov1@gmail.com' })).toBeNull();
    });

    it("fires on the referrer's last seen IP; silent on another address", async () => {
      const tenant = await tenantWith();
      const partner = await upsertUser(t, tenant.key, { client: { ip: '198.51.100.7' } });
      const flagged = await leadReview(
        tenant,
        partner,
        { email: 'a@customer.example' },
        { ip: '198.51.100.7', user_agent: 'Mozilla/5.0' },
      );
      expect(codes(flagged)).toEqual(['self_referral']);
      expect(flagged!.signals[0].detail).toContain('198.51.100.7');
      expect(
        await leadReview(tenant, partner, { email: 'b@customer.example' }, { ip: '198.51.100.8' }),
      ).toBeNull();
    });

    it('refuses a client IP that is not an IP literal (400)', async () => {
      const tenant = await tenantWith();
      const partner = await upsertUser(t, tenant.key);
      for (const ip of ['localhost', '1.2.3', '10.0.0.1/8', 12]) {
        const res = await federation(t, tenant, '/federation/v1/leads', {
          referrer_user_id: partner.serviceUserId,
          contact: { name: 'X', email: 'x@customer.example' },
          client: { ip },
        });
        expect(res.status).toBe(400);
        const up = await federation(t, tenant, '/federation/v1/users/upsert', {
          external_id: 'e-1',
          client: { ip },
        });
        expect(up.status).toBe(400);
      }
      const [{ count }] = await t.db.query(
        `SELECT count(*)::int AS count FROM leads WHERE tenant_id = $1`,
        [tenant.orgId],
      );
      expect(count).toBe(0);
    });
  });

  describe('duplicate_customer', () => {
    it("fires when the email is another partner's lead; silent for the same partner or another tenant", async () => {
      const tenant = await tenantWith();
      const [a, b] = [await upsertUser(t, tenant.key), await upsertUser(t, tenant.key)];
      expect(await leadReview(tenant, a, { email: 'dup@customer.example' })).toBeNull();
      expect(await leadReview(tenant, a, { email: 'dup@customer.example' })).toBeNull();
      const review = await leadReview(tenant, b, { email: 'Dup@Customer.example' });
      expect(codes(review)).toEqual(['duplicate_customer']);

      const other = await tenantWith();
      const c = await upsertUser(t, other.key);
      expect(await leadReview(other, c, { email: 'dup@customer.example' })).toBeNull();
    });
  });

  describe('duplicate_customer and anonymous form posts (issue #32)', () => {
    it("an anonymous lead-form or landing-page post does not flag an honest partner's lead", async () => {
      const tenant = await tenantWith();
      const [other, honest] = [await upsertUser(t, tenant.key), await upsertUser(t, tenant.key)];
      const link = await createLink(t, tenant, other);
      // Anyone holding `other`'s ref posts the customers' emails, with no credential.
      const widget = await t
        .http()
        .post(`/embed/v1/data/leads?tenant=${tenant.slug}`)
        .set('Origin', tenant.body.allowed_origins[0])
        .send({ ref: link.signed_ref, contact: { name: 'V', email: 'olga@customer.example' } });
      expect(widget.status).toBe(200);
      const landing = await t
        .http()
        .post(`/s/${link.code}/lead`)
        .type('form')
        .send('name=V&email=pavel%40customer.example');
      expect(landing.status).toBe(200);
      // The honest partner's authenticated leads for those customers stay unflagged.
      expect(await leadReview(tenant, honest, { email: 'olga@customer.example' })).toBeNull();
      expect(await leadReview(tenant, honest, { email: 'Pavel@customer.example' })).toBeNull();
      const anonymous = await t.db.query(
        `SELECT source, anonymous FROM leads WHERE tenant_id = $1 ORDER BY source, anonymous`,
        [tenant.orgId],
      );
      expect(anonymous).toEqual([
        { source: 'federation', anonymous: false },
        { source: 'federation', anonymous: false },
        { source: 'lead_form', anonymous: true },
        { source: 'referral_link', anonymous: true },
      ]);
      // The other way round still fires: an anonymous post naming an authenticated lead's
      // customer holds back the posting partner's bonus.
      const late = await t
        .http()
        .post(`/embed/v1/data/leads?tenant=${tenant.slug}`)
        .set('Origin', tenant.body.allowed_origins[0])
        .send({ ref: link.signed_ref, contact: { name: 'V', email: 'OLGA@customer.example' } });
      expect(late.status).toBe(200);
      const [bonus] = await t.db.query(
        `SELECT review FROM bonuses WHERE tenant_id = $1 AND source_type = 'lead' AND source_id = $2`,
        [tenant.orgId, late.body.lead_id],
      );
      expect(codes(bonus.review)).toEqual(['duplicate_customer']);
    });
  });

  describe('ip_burst', () => {
    it('fires past leads_per_hour from one IP for one partner; silent under it, and for another partner', async () => {
      const tenant = await tenantWith({ ip_burst: { leads_per_hour: 3 } });
      const [a, b] = [await upsertUser(t, tenant.key), await upsertUser(t, tenant.key)];
      const office = { ip: '203.0.113.50' };
      const reviews = [];
      for (let i = 0; i < 4; i++) {
        reviews.push(await leadReview(tenant, a, { email: `c${i}@office.example` }, office));
      }
      // The second (and third) lead from a shared office IP is under the threshold.
      expect(reviews.slice(0, 3)).toEqual([null, null, null]);
      expect(codes(reviews[3])).toEqual(['ip_burst']);
      expect(reviews[3]!.signals[0].detail).toMatch(/^4 leads .*203\.0\.113\.50.*more than 3/);
      expect(await leadReview(tenant, b, { email: 'x@office.example' }, office)).toBeNull();
    });

    it('is off when the tenant switches it off', async () => {
      const tenant = await tenantWith({ ip_burst: { enabled: false, leads_per_hour: 1 } });
      const a = await upsertUser(t, tenant.key);
      const ip = { ip: '2001:db8::1' };
      await leadReview(tenant, a, { email: 'o1@office.example' }, ip);
      expect(await leadReview(tenant, a, { email: 'o2@office.example' }, ip)).toBeNull();
    });
  });

  describe('disposable_email', () => {
    it('fires on a disposable-mail domain (and its subdomains); silent on an ordinary one', async () => {
      const tenant = await tenantWith();
      const a = await upsertUser(t, tenant.key);
      expect(codes(await leadReview(tenant, a, { email: 'x@mailinator.com' }))).toEqual([
        'disposable_email',
      ]);
      expect(codes(await leadReview(tenant, a, { email: 'y@eu.mailinator.com' }))).toEqual([
        'disposable_email',
      ]);
      expect(await leadReview(tenant, a, { email: 'z@gmail.com' })).toBeNull();
      expect(await leadReview(tenant, a, { phone: '+79001234567' })).toBeNull();
    });

    it('is off when switched off', async () => {
      const tenant = await tenantWith({ disposable_email: { enabled: false } });
      const a = await upsertUser(t, tenant.key);
      expect(await leadReview(tenant, a, { email: 'x@mailinator.com' })).toBeNull();
    });
  });

  describe('conversion signals', () => {
    const register = (tenant: TestTenant, body: Record<string, unknown>) =>
      federation(t, tenant, '/federation/v1/conversions/register', { currency: 'RUB', ...body });
    const reviewsOf = async (tenant: TestTenant, conversionId: string) =>
      (
        await t.db.query(
          `SELECT review FROM bonuses WHERE tenant_id = $1 AND source_id = $2 ORDER BY tier`,
          [tenant.orgId, conversionId],
        )
      ).map((r: { review: Review | null }) => r.review);

    it('fast_conversion fires within `seconds` of the click; silent on a ref without a click or after the window', async () => {
      const tenant = await tenantWith({ fast_conversion: { enabled: true, seconds: 2 } });
      const partner = await upsertUser(t, tenant.key);
      const link = await createLink(t, tenant, partner);
      // A customer per order: a customer's later orders reuse their first lead (docs/money.md §2).
      const customer = (n: number) => ({ email: `fast-${n}@customer.example` });

      const fast = await register(tenant, {
        signed_ref: await clickRef(t, link),
        customer: customer(1),
        amount_kopecks: 10_000,
        external_order_id: 'fast-1',
      });
      expect(fast.status).toBe(200);
      const [review] = await reviewsOf(tenant, fast.body.conversion_id);
      expect(codes(review)).toEqual(['fast_conversion']);

      // The link's own signed_ref carries no click: nothing to measure.
      const unstamped = await register(tenant, {
        signed_ref: link.signed_ref,
        customer: customer(2),
        amount_kopecks: 10_000,
        external_order_id: 'fast-2',
      });
      expect(await reviewsOf(tenant, unstamped.body.conversion_id)).toEqual([null]);

      const slowRef = await clickRef(t, link);
      await sleep(2_100);
      const slow = await register(tenant, {
        signed_ref: slowRef,
        customer: customer(3),
        amount_kopecks: 10_000,
        external_order_id: 'fast-3',
      });
      expect(await reviewsOf(tenant, slow.body.conversion_id)).toEqual([null]);
    });

    it('fast_conversion is off by default', async () => {
      const tenant = await tenantWith();
      const partner = await upsertUser(t, tenant.key);
      const link = await createLink(t, tenant, partner);
      const res = await register(tenant, {
        signed_ref: await clickRef(t, link),
        customer: { name: 'Quick' },
        amount_kopecks: 10_000,
        external_order_id: 'default-off',
      });
      expect(await reviewsOf(tenant, res.body.conversion_id)).toEqual([null]);
    });

    it('amount_outlier fires above factor × median once there are 20 conversions; silent below', async () => {
      const tenant = await tenantWith({ amount_outlier: { enabled: true, factor: 10 } });
      const partner = await upsertUser(t, tenant.key);
      await createLink(t, tenant, partner, { promo_code: 'MEDIAN' });
      const order = (n: number, amount: number) =>
        register(tenant, {
          promo_code: 'MEDIAN',
          customer: { external_id: `c-${n}` },
          amount_kopecks: amount,
          external_order_id: `m-${n}`,
        });
      // Before 20 conversions, nothing is an outlier.
      for (let i = 0; i < 19; i++) expect((await order(i, 1000)).status).toBe(200);
      const early = await order(19, 1_000_000);
      expect(await reviewsOf(tenant, early.body.conversion_id)).toEqual([null]);
      // 20 conversions with median 1000: 10 000 is not above 10 ×, 10 001 is.
      const honest = await order(20, 10_000);
      expect(await reviewsOf(tenant, honest.body.conversion_id)).toEqual([null]);
      const outlier = await order(21, 10_001);
      const [review] = await reviewsOf(tenant, outlier.body.conversion_id);
      expect(codes(review)).toEqual(['amount_outlier']);
      expect(review!.signals[0].detail).toMatch(/10 times the median/);
    });

    it("a lead's signal flags its conversion's bonuses too, the whole cascade", async () => {
      const tenant = await tenantWith();
      const upline = await upsertUser(t, tenant.key);
      const partner = await upsertUser(t, tenant.key, { referrer_user_id: upline.serviceUserId });
      const lead = await federation(t, tenant, '/federation/v1/leads', {
        referrer_user_id: partner.serviceUserId,
        contact: { name: 'Temp', email: 'temp@mailinator.com' },
      });
      const res = await register(tenant, {
        lead_id: lead.body.lead_id,
        amount_kopecks: 100_000,
        external_order_id: 'cascade-1',
        client: { ip: '192.0.2.1' },
      });
      expect(res.status).toBe(200);
      const reviews = await reviewsOf(tenant, res.body.conversion_id);
      expect(reviews).toHaveLength(2);
      for (const review of reviews) expect(codes(review)).toEqual(['disposable_email']);
    });
  });

  it('a flagged bonus: review in the admin API, ?review=flagged, and bonus.flagged after bonus.pending', async () => {
    const tenant = await tenantWith();
    const viewer = await createStaffToken(t, tenant.slug, 'viewer');
    const a = await upsertUser(t, tenant.key);
    await leadReview(tenant, a, { email: 'ok@gmail.com' });
    await leadReview(tenant, a, { email: 'no@mailinator.com' });

    const asViewer = adminApi(t, viewer);
    const all = await asViewer.listBonuses(tenant.slug);
    expect(all.status).toBe(200);
    expect(all.body.items).toHaveLength(2);
    const flagged = await asViewer.listBonuses(tenant.slug, { review: 'flagged' });
    expect(flagged.body.items).toHaveLength(1);
    const bonus = flagged.body.items[0];
    expect(bonus.status).toBe('pending');
    expect(bonus.review).toEqual({
      status: 'flagged',
      signals: [
        {
          code: 'disposable_email',
          detail: "The customer's email no@mailinator.com is at a disposable-mail domain.",
        },
      ],
    });
    const honest = all.body.items.find((b) => b.bonus_id !== bonus.bonus_id);
    expect(honest?.review).toBeNull();
    // Not a value the DTO allows: sent as it is.
    const bad = await asViewer.raw('get', `/admin/v1/tenants/${tenant.slug}/bonuses?review=maybe`);
    expect(bad.status).toBe(400);

    const events = await eventsOf(t, tenant.orgId);
    const types = events.map(
      (e) => `${e.event_type}:${(e.payload.bonus_id as string | undefined) ?? ''}`,
    );
    const pendingAt = types.indexOf(`bonus.pending:${bonus.bonus_id}`);
    const flaggedAt = types.indexOf(`bonus.flagged:${bonus.bonus_id}`);
    expect(pendingAt).toBeGreaterThanOrEqual(0);
    expect(flaggedAt).toBeGreaterThan(pendingAt);
    expect(events.filter((e) => e.event_type === 'bonus.flagged')).toHaveLength(1);
    expect(events[flaggedAt].payload).toEqual({
      bonus_id: bonus.bonus_id,
      user_id: a.serviceUserId,
      amount_kopecks: 1000,
      signals: bonus.review!.signals,
    });
  });

  it('the tenant object shows the settings with defaults; bad settings are 400', async () => {
    const tenant = await tenantWith({ ip_burst: { leads_per_hour: 5 } });
    expect(tenant.body.attribution_window_days).toBe(90);
    expect(tenant.body.fraud).toEqual({
      self_referral: { enabled: true },
      duplicate_customer: { enabled: true },
      ip_burst: { enabled: true, leads_per_hour: 5 },
      disposable_email: { enabled: true },
      fast_conversion: { enabled: false, seconds: 30 },
      amount_outlier: { enabled: false, factor: 10 },
    });
    // Bad bodies too: sent as they are, with the platform admin's token.
    const patch = (body: Record<string, unknown>) =>
      adminApi(t, t.adminToken).raw('patch', `/admin/v1/tenants/${tenant.slug}`, body);
    for (const body of [
      { attribution_window_days: 0 },
      { attribution_window_days: 3651 },
      { fraud: { ip_burst: { leads_per_hour: 0 } } },
      { fraud: { nonsense: { enabled: true } } },
      { fraud: { self_referral: { enabled: 'yes' } } },
    ]) {
      expect((await patch(body)).status).toBe(400);
    }
    const ok = await patch({
      attribution_window_days: 7,
      fraud: { amount_outlier: { enabled: true } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.attribution_window_days).toBe(7);
    expect(ok.body.fraud.amount_outlier).toEqual({ enabled: true, factor: 10 });
  });
});
