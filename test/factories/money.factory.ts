import type { ConversionResponse } from '../../src/conversions/dto/conversion.response';
import { federationApi } from '../utils/api-client';
import type { TestApp } from '../utils/create-test-app';

/** Registers a lead for `referrerUserId` through the Federation API. */
export async function createLead(
  t: TestApp,
  tenantKey: string,
  referrerUserId: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await federationApi(t, tenantKey).createLead({
    referrer_user_id: referrerUserId,
    contact: { name: 'Lead', email: 'lead@example.org' },
    ...body,
  });
  if (res.status !== 200) throw new Error(`createLead: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.lead_id;
}

/** Registers a conversion; returns the response body. */
export async function registerConversion(
  t: TestApp,
  tenantKey: string,
  body: { lead_id: string; amount_kopecks: number; external_order_id: string; currency?: string },
): Promise<ConversionResponse> {
  const res = await federationApi(t, tenantKey).registerConversion({ currency: 'RUB', ...body });
  if (res.status !== 200)
    throw new Error(`registerConversion: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The outbox envelopes of a tenant, oldest first, parsed from the stored bytes. */
export async function eventsOf(t: TestApp, orgId: string, type?: string) {
  const rows: { body: string }[] = await t.db.query(
    `SELECT body FROM events WHERE tenant_id = $1 ${type ? 'AND event_type = $2' : ''} ORDER BY occurred_at, id`,
    type ? [orgId, type] : [orgId],
  );
  return rows.map(
    (r) =>
      JSON.parse(r.body) as {
        event_type: string;
        event_id: string;
        occurred_at: string;
        payload: Record<string, unknown>;
      },
  );
}
