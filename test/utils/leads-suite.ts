/**
 * The lead specs' shared setup (test/e2e/leads/leads-*.e2e-spec.ts): one app per file, a fresh tenant
 * and a referrer before every test, and the Federation calls the specs make. The fields are set
 * by the hooks: read them inside a test.
 */
import { createTenant, type TestTenant } from '../factories/tenants.factory';
import { upsertUser, type UpsertedMember } from '../factories/users.factory';
import { adminApi, federationApi } from './api-client';
import { createTestApp, type TestApp } from './create-test-app';

export const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const LEAD_ID = /^lead_[0-9A-Z]{26}$/;
export const EVENT_ID = /^evt_[0-9A-Z]{26}$/;
export const BONUS_ID = /^bns_[0-9A-Z]{26}$/;
/** Well-formed but nobody's. */
export const UNKNOWN_USR = 'usr_01ARZ3NDEKTSV4RRFFQ69G5FAV';

export function leadsSuite() {
  const s = {} as { t: TestApp; tenant: TestTenant; referrer: UpsertedMember };
  beforeAll(async () => {
    s.t = await createTestApp();
  });
  afterAll(() => s.t.close());
  beforeEach(async () => {
    s.tenant = await createTenant(s.t);
    s.referrer = await upsertUser(s.t, s.tenant.key, {
      email: 'Partner@Example.com',
      full_name: 'P',
    });
  });

  const postLead = (body: Record<string, unknown>, key = s.tenant.key) =>
    federationApi(s.t, key).createLead(body);
  const setStatus = (leadId: string, body: Record<string, unknown>, key = s.tenant.key) =>
    federationApi(s.t, key).setLeadStatus(leadId, body);
  const validLead = (overrides: Record<string, unknown> = {}) => ({
    referrer_user_id: s.referrer.serviceUserId,
    contact: { name: 'Ivan Petrov', email: 'ivan@example.org' },
    ...overrides,
  });
  const bonusesOf = (orgId: string): Promise<Record<string, unknown>[]> =>
    s.t.db.query(
      `SELECT id, status, source_type, source_id, tier, amount_kopecks::int AS amount, currency,
              reason, service_user_id
         FROM bonuses WHERE tenant_id = $1 ORDER BY created_at, id`,
      [orgId],
    );
  const createOffer = async (slug: string, body: Record<string, unknown>) => {
    const res = await adminApi(s.t, s.t.adminToken).createOffer(slug, body);
    expect(res.status).toBe(201);
    return res.body;
  };
  return Object.assign(s, { postLead, setStatus, validLead, bonusesOf, createOffer });
}
