/**
 * The bounties specs' shared setup (test/e2e/bounties/*.e2e-spec.ts): the groups suite (one app
 * per file, a fresh tenant with an owner, a manager and a viewer before every test) with the
 * bounty calls (docs/money.md, "Bounties") and a partner's sales through the Federation API.
 */
import { createLead } from '../factories/money.factory';
import type { UpsertedMember } from '../factories/users.factory';
import { adminApi } from './api-client';
import { groupsSuite } from './groups-suite';

export const BOUNTY_ID = /^bty_[0-9A-HJKMNP-TV-Z]{26}$/;

export interface Bounty {
  bounty_id: string;
  name: string;
  group_id: string | null;
  metric: string;
  threshold: number;
  amount_kopecks: number;
  currency: string;
  starts_at: string;
  ends_at: string | null;
  reached_count: number;
  created_at: string;
}

export interface Progress {
  user_id: string;
  value: number;
  threshold: number;
  reached: boolean;
  reached_at: string | null;
  bonus_id: string | null;
}

/** `env`: the app's extra environment, read when the app starts (a hook before may fill it). */
export function bountiesSuite(env: Record<string, string> = {}) {
  const g = groupsSuite({}, env);
  let orders = 0;
  const base = (slug = g.tenant.slug) => `/admin/v1/tenants/${slug}/bounties`;
  const as = (token = g.manager) => adminApi(g.t, token).raw;

  /** A lead of `partner` and its conversion (200 or the test fails). */
  const sale = async (partner: UpsertedMember, amount = 10_000, currency = 'RUB') => {
    const n = ++orders;
    const leadId = await createLead(g.t, g.tenant.key, partner.serviceUserId, {
      contact: { name: 'Customer', email: `b${n}@example.org` },
    });
    const res = await g.fed().registerConversion({
      lead_id: leadId,
      amount_kopecks: amount,
      currency,
      external_order_id: `bty-${n}`,
    });
    if (res.status !== 200) throw new Error(`sale: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { conversion_id: string };
  };

  return Object.assign(g, {
    createBounty: (body: unknown, token = g.manager, slug?: string) =>
      as(token)('post', base(slug), body),
    listBounties: (query = '', token = g.manager, slug?: string) =>
      as(token)('get', `${base(slug)}${query}`),
    updateBounty: (id: string, body: unknown, token = g.manager, slug?: string) =>
      as(token)('patch', `${base(slug)}/${id}`, body),
    progressOf: (id: string, query = '', token = g.manager, slug?: string) =>
      as(token)('get', `${base(slug)}/${id}/progress${query}`),
    /** Creates a bounty running from a second ago (201 or the test fails). */
    async bounty(body: Record<string, unknown> = {}): Promise<Bounty> {
      const res = await as()('post', base(), {
        name: 'Sprint',
        metric: 'conversions',
        threshold: 3,
        amount_kopecks: 50_000,
        currency: 'RUB',
        starts_at: new Date(Date.now() - 1000).toISOString(),
        ...body,
      });
      if (res.status !== 201) throw new Error(`bounty: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Bounty;
    },
    sale,
    reverse: (conversionId: string) =>
      g.fed().reverseConversion(conversionId, { reason: 'refund' }),
    /** The partner's bonuses of source type `bounty`, straight from the table. */
    async bountyBonuses(partner: UpsertedMember) {
      return g.t.db.query<
        { id: string; source_id: string; amount_kopecks: string; status: string }[]
      >(
        `SELECT id, source_id, amount_kopecks, status, tier FROM bonuses
          WHERE tenant_id = $1 AND member_id = $2 AND source_type = 'bounty'`,
        [g.tenant.orgId, partner.memberId],
      );
    },
  });
}
