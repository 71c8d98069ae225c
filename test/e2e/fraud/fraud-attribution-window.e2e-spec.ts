import { signRef } from '../../../src/members/signed-ref';
import { clickRef, createLink, federation } from '../../factories/fraud.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * docs/fraud.md, "Click-stamped refs": the ref `/s/:code` appends carries the click time, signed;
 * older than the tenant's attribution window it is 422 `ref_expired` wherever a ref is accepted.
 * A ref without a click time never expires.
 */
jest.setTimeout(60_000);

const DAY = 86_400_000;

describe('fraud: the attribution window', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let partner: UpsertedMember;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    tenant = await createTenant(t, { attribution_window_days: 2 });
    partner = await upsertUser(t, tenant.key);
  });

  /** A ref as /s/:code would have minted it `ageMs` ago. */
  const refClickedAgo = (deeplinkId: string, ageMs: number) =>
    signRef(
      { t: tenant.orgId, r: partner.serviceUserId, d: deeplinkId, c: Date.now() - ageMs },
      t.config.refSigningSecret,
    );

  /** The three places a ref is accepted, each answering its status and code. */
  const uses = {
    upsert: (ref: string) =>
      federation(t, tenant, '/federation/v1/users/upsert', {
        external_id: `new-${Math.random()}`,
        signed_ref: ref,
      }),
    leadForm: (ref: string) =>
      t
        .http()
        .post(`/embed/v1/data/leads?tenant=${tenant.slug}`)
        .set('Origin', tenant.body.allowed_origins[0])
        .send({ ref, contact: { name: 'Visitor', email: 'visitor@customer.example' } }),
    conversion: (ref: string) =>
      federation(t, tenant, '/federation/v1/conversions/register', {
        signed_ref: ref,
        customer: { name: 'Buyer' },
        amount_kopecks: 1000,
        currency: 'RUB',
        external_order_id: `o-${Math.random()}`,
      }),
  };

  it('the redirect carries a signed click time within a second of the click', async () => {
    const link = await createLink(t, tenant, partner);
    const before = Date.now();
    const ref = await clickRef(t, link);
    const payload = JSON.parse(Buffer.from(ref.split('.')[0], 'base64url').toString()) as {
      c: number;
      d: string;
    };
    expect(payload.d).toBe(link.deeplink_id);
    expect(payload.c).toBeGreaterThanOrEqual(before - 1000);
    expect(payload.c).toBeLessThanOrEqual(Date.now() + 1000);
    expect(ref).not.toBe(link.signed_ref);
    // A changed click time breaks the signature.
    const forged = Buffer.from(JSON.stringify({ ...payload, c: payload.c + DAY })).toString(
      'base64url',
    );
    const res = await uses.conversion(`${forged}.${ref.split('.')[1]}`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('invalid_ref');
  });

  it.each(Object.keys(uses) as (keyof typeof uses)[])(
    '%s: a fresh click credits, one older than the window is 422 ref_expired, an unstamped ref never expires',
    async (use) => {
      const link = await createLink(t, tenant, partner);
      expect((await uses[use](await clickRef(t, link))).status).toBe(200);
      expect((await uses[use](refClickedAgo(link.deeplink_id, 2 * DAY - 60_000))).status).toBe(200);
      const expired = await uses[use](refClickedAgo(link.deeplink_id, 2 * DAY + 60_000));
      expect(expired.status).toBe(422);
      expect(expired.body.code).toBe('ref_expired');
      expect((await uses[use](link.signed_ref)).status).toBe(200);
    },
  );

  it('a wider window accepts the same old ref', async () => {
    const link = await createLink(t, tenant, partner);
    const old = refClickedAgo(link.deeplink_id, 30 * DAY);
    expect((await uses.conversion(old)).status).toBe(422);
    const widened = await adminApi(t, t.adminToken).updateTenant(tenant.slug, {
      attribution_window_days: 90,
    });
    expect(widened.status).toBe(200);
    expect((await uses.conversion(old)).status).toBe(200);
  });
});
