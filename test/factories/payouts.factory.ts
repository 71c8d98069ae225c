import type { TestApp } from '../utils/create-test-app';

export const admin = (t: TestApp) => ({ Authorization: `Bearer ${t.adminToken}` });

/** Approves a bonus through the admin API. */
export async function approveBonus(t: TestApp, slug: string, bonusId: string): Promise<void> {
  const res = await t
    .http()
    .post(`/admin/v1/tenants/${slug}/bonuses/${bonusId}/approve`)
    .set(admin(t));
  if (res.status !== 200) throw new Error(`approve: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function runPayouts(t: TestApp, slug: string) {
  const res = await t.http().post(`/admin/v1/tenants/${slug}/payouts/runs`).set(admin(t));
  if (res.status !== 201) throw new Error(`run: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as {
    run_id: string;
    payouts_count: number;
    total_kopecks: number;
    currency_totals: Record<string, number>;
  };
}

export interface Violation {
  what: string;
  row: Record<string, unknown>;
}

/**
 * Every docs/payouts.md invariant of a tenant, straight from the tables: for every member and currency
 * available + in_payout + paid = approved + paid bonuses; in_payout and paid are the sums of the
 * pending and paid payouts; the kept balance is the sum of the ledger; a payout's amount is the
 * sum of its items, each at its bonus's or clawback's amount; no item is in two payouts that are
 * not failed or canceled, and `payout_claims` holds exactly the items of those payouts.
 */
export async function invariantViolations(t: TestApp, orgId: string): Promise<Violation[]> {
  const found: Violation[] = [];
  const check = async (what: string, sql: string) => {
    const rows: Record<string, unknown>[] = await t.db.query(sql, [orgId]);
    for (const row of rows) found.push({ what, row });
  };
  await check(
    'balance vs bonuses and payouts',
    `WITH keys AS (
       SELECT member_id, currency FROM ledger_balances WHERE tenant_id = $1
       UNION SELECT member_id, currency FROM bonuses WHERE tenant_id = $1
       UNION SELECT member_id, currency FROM payouts WHERE tenant_id = $1),
     bal AS (SELECT * FROM ledger_balances WHERE tenant_id = $1),
     bon AS (SELECT member_id, currency, sum(amount_kopecks) AS s FROM bonuses
              WHERE tenant_id = $1 AND status IN ('approved', 'paid') GROUP BY 1, 2),
     pend AS (SELECT member_id, currency, sum(amount_kopecks) AS s FROM payouts
              WHERE tenant_id = $1 AND status = 'pending' GROUP BY 1, 2),
     paid AS (SELECT member_id, currency, sum(amount_kopecks) AS s FROM payouts
              WHERE tenant_id = $1 AND status = 'paid' GROUP BY 1, 2),
     led AS (SELECT member_id, currency, sum(available_delta) AS a, sum(in_payout_delta) AS i,
                    sum(paid_delta) AS p FROM ledger_entries WHERE tenant_id = $1 GROUP BY 1, 2)
     SELECT k.member_id, k.currency, bal.available_kopecks, bal.in_payout_kopecks,
            bal.paid_kopecks, bon.s AS bonuses, pend.s AS pending, paid.s AS paid
       FROM keys k
       LEFT JOIN bal USING (member_id, currency) LEFT JOIN bon USING (member_id, currency)
       LEFT JOIN pend USING (member_id, currency) LEFT JOIN paid USING (member_id, currency)
       LEFT JOIN led USING (member_id, currency)
      WHERE coalesce(bal.available_kopecks + bal.in_payout_kopecks + bal.paid_kopecks, 0)
              <> coalesce(bon.s, 0)
         OR coalesce(bal.in_payout_kopecks, 0) <> coalesce(pend.s, 0)
         OR coalesce(bal.paid_kopecks, 0) <> coalesce(paid.s, 0)
         OR coalesce(bal.available_kopecks, 0) <> coalesce(led.a, 0)
         OR coalesce(bal.in_payout_kopecks, 0) <> coalesce(led.i, 0)
         OR coalesce(bal.paid_kopecks, 0) <> coalesce(led.p, 0)`,
  );
  await check(
    'available vs payable items',
    `WITH keys AS (SELECT member_id, currency FROM ledger_balances WHERE tenant_id = $1),
     items AS (
       SELECT b.member_id, b.currency, b.amount_kopecks FROM bonuses b
        WHERE b.tenant_id = $1 AND b.status = 'approved' AND NOT EXISTS (
          SELECT 1 FROM payout_claims i WHERE i.tenant_id = $1 AND i.item_id = b.id)
       UNION ALL
       SELECT c.member_id, c.currency, c.amount_kopecks FROM clawbacks c
        WHERE c.tenant_id = $1 AND c.state = 'open' AND NOT EXISTS (
          SELECT 1 FROM payout_claims i WHERE i.tenant_id = $1 AND i.item_id = c.id)
       UNION ALL
       SELECT c.member_id, c.currency, c.amount_kopecks FROM clawbacks c
         JOIN payouts p ON p.tenant_id = c.tenant_id AND p.id = c.payout_id
        WHERE c.tenant_id = $1 AND c.state = 'held' AND p.status = 'pending'),
     s AS (SELECT member_id, currency, sum(amount_kopecks) AS s FROM items GROUP BY 1, 2)
     SELECT k.member_id, k.currency, b.available_kopecks, s.s AS items FROM keys k
       JOIN ledger_balances b ON b.tenant_id = $1 AND b.member_id = k.member_id
                             AND b.currency = k.currency
       LEFT JOIN s ON s.member_id = k.member_id AND s.currency = k.currency
      WHERE b.available_kopecks <> coalesce(s.s, 0)`,
  );
  const items = `SELECT p.id AS payout_id, p.status, i.item_id, i.amount
                   FROM payouts p, unnest(p.item_ids, p.item_amounts) AS i(item_id, amount)
                  WHERE p.tenant_id = $1`;
  await check(
    'payout amount vs items',
    `SELECT p.id, p.amount_kopecks, (SELECT sum(a) FROM unnest(p.item_amounts) a) AS items,
            cardinality(p.item_ids) AS ids, cardinality(p.item_amounts) AS amounts
       FROM payouts p
      WHERE p.tenant_id = $1
        AND (p.amount_kopecks IS DISTINCT FROM (SELECT sum(a) FROM unnest(p.item_amounts) a)
             OR cardinality(p.item_ids) <> cardinality(p.item_amounts))`,
  );
  await check(
    'item amount vs its bonus or clawback',
    `SELECT i.* FROM (${items}) i
       LEFT JOIN bonuses b ON b.tenant_id = $1 AND b.id = i.item_id
       LEFT JOIN clawbacks c ON c.tenant_id = $1 AND c.id = i.item_id
      WHERE i.amount IS DISTINCT FROM coalesce(b.amount_kopecks, c.amount_kopecks)`,
  );
  await check(
    'item in two live payouts, or claim wrong',
    `WITH i AS (${items}),
     live AS (SELECT item_id, payout_id FROM i WHERE status IN ('pending', 'paid')),
     claims AS (SELECT item_id, payout_id FROM payout_claims WHERE tenant_id = $1)
     SELECT item_id, count(*) AS live_payouts, NULL AS claim FROM live GROUP BY item_id
     HAVING count(*) > 1
     UNION ALL
     SELECT coalesce(l.item_id, c.item_id), NULL, coalesce(c.payout_id, 'none')
       FROM live l FULL JOIN claims c ON c.item_id = l.item_id AND c.payout_id = l.payout_id
      WHERE l.item_id IS NULL OR c.item_id IS NULL`,
  );
  await check(
    'paid bonus outside a paid payout',
    `SELECT b.id FROM bonuses b WHERE b.tenant_id = $1 AND b.status = 'paid'
        AND NOT EXISTS (SELECT 1 FROM (${items}) i
                         WHERE i.item_id = b.id AND i.status = 'paid')`,
  );
  return found;
}
