/**
 * The money specs' shared setup (test/e2e/conversions/{money-register,money-reverse,money-races,
 * write-surfaces}.e2e-spec.ts, test/e2e/bonuses/money-bonuses.e2e-spec.ts): one app per file, a
 * fresh tenant with three percentage tiers and a manager token before every test, and the calls
 * and reads the specs make. Fields of the returned object are set by the hooks: read them inside
 * a test.
 */
import { createLead } from '../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../factories/tenants.factory';
import { createChain, type UpsertedMember } from '../factories/users.factory';
import { adminApi, federationApi } from './api-client';
import { createTestApp, type TestApp } from './create-test-app';

export const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const BONUS_ID = /^bns_[0-9A-Z]{26}$/;
export const UNKNOWN = {
  lead: 'lead_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  conversion: 'cnv_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  bonus: 'bns_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  user: 'usr_01ARZ3NDEKTSV4RRFFQ69G5FAV',
};
/** referrer 10 %, upline_1 3 %, upline_2 2 %: all percentages, so every share is checkable. */
export const TIERS = [
  { tier: 'referrer', percent_bp: 1000 },
  { tier: 'upline_1', percent_bp: 300 },
  { tier: 'upline_2', percent_bp: 200 },
];

export type Bonus = Record<string, unknown> & { bonus_id: string; status: string };
export const keysOf = (o: object) => Object.keys(o).sort();
export const byId = <T extends { bonus_id: string }>(a: T, b: T) =>
  a.bonus_id.localeCompare(b.bonus_id);

export interface AuditItem {
  actor: { type: string; name: string };
  action: string;
  target_type: string;
  target_id: string;
  details: Record<string, unknown>;
}

export function moneySuite() {
  const s = {} as { t: TestApp; tenant: TestTenant; manager: string };
  beforeAll(async () => {
    s.t = await createTestApp();
  });
  afterAll(() => s.t.close());
  beforeEach(async () => {
    s.tenant = await createTenant(s.t, { program: { tiers: TIERS } });
    s.manager = await createStaffToken(s.t, s.tenant.slug, 'manager');
  });

  /** The Federation API with the tenant's key (or another). */
  const fed = (key = s.tenant.key) => federationApi(s.t, key);
  /** The Admin API with the manager's token (or another). */
  const admin = (token = s.manager) => adminApi(s.t, token);
  const register = (body: Record<string, unknown>, key = s.tenant.key) =>
    fed(key).registerConversion({ currency: 'RUB', ...body });
  const reverse = (conversionId: string, reason = 'refund', key = s.tenant.key) =>
    fed(key).reverseConversion(conversionId, { reason });
  const approve = (bonusId: string, token = s.manager) =>
    admin(token).approveBonus(s.tenant.slug, bonusId);
  const reject = (bonusId: string, reason: string | undefined, token = s.manager) =>
    admin(token).rejectBonus(s.tenant.slug, bonusId, reason === undefined ? {} : { reason });
  const listBonuses = (query: Record<string, string | number> = {}, token = s.manager, slug = '') =>
    admin(token).listBonuses(slug || s.tenant.slug, query);
  const bonus = async (bonusId: string): Promise<Bonus> => {
    const res = await listBonuses({ page_size: 100 });
    const found = (res.body.items as unknown as Bonus[]).find((b) => b.bonus_id === bonusId);
    if (!found) throw new Error(`bonus ${bonusId} not listed`);
    return found;
  };
  const leadStatus = async (leadId: string, orgId = s.tenant.orgId): Promise<string> => {
    const [row] = await s.t.db.query(`SELECT status FROM leads WHERE tenant_id = $1 AND id = $2`, [
      orgId,
      leadId,
    ]);
    return row.status;
  };
  const counts = async (orgId = s.tenant.orgId) => {
    const [row] = await s.t.db.query(
      `SELECT (SELECT count(*)::int FROM conversions WHERE tenant_id = $1) AS conversions,
              (SELECT count(*)::int FROM bonuses WHERE tenant_id = $1) AS bonuses,
              (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events`,
      [orgId],
    );
    return row as { conversions: number; bonuses: number; events: number };
  };
  const auditOf = async (action: string) => {
    const res = await admin().auditLog(s.tenant.slug, { action });
    expect(res.status).toBe(200);
    return res.body.items as unknown as AuditItem[];
  };
  /** A chain of `length` members [root … referrer] and a lead of the deepest one. */
  const chainWithLead = async (length: number, leadBody: Record<string, unknown> = {}) => {
    const chain = await createChain(s.t, s.tenant.key, length);
    const leadId = await createLead(s.t, s.tenant.key, chain[length - 1].serviceUserId, leadBody);
    return { chain, leadId, referrer: chain[length - 1] };
  };
  const share = (m: UpsertedMember, amount: number, tier: string) => ({
    user_id: m.serviceUserId,
    amount_kopecks: amount,
    tier,
    rule: {
      program_version_id: expect.stringMatching(/^prv_/),
      phase: 1,
      tier,
      compressed_from: null,
    },
    explanation: expect.any(String),
    bonus_id: expect.stringMatching(BONUS_ID),
  });

  return Object.assign(s, {
    fed,
    admin,
    register,
    reverse,
    approve,
    reject,
    listBonuses,
    bonus,
    leadStatus,
    counts,
    auditOf,
    chainWithLead,
    share,
  });
}
