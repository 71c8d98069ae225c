import { createHmac } from 'node:crypto';
import { createLead } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { HttpsReceiver, startHttpsReceiver } from '../../utils/https-receiver';
import { newRunId } from '../../utils/test-env';

describe('webhooks: smoke', () => {
  let t: TestApp;
  let receiver: HttpsReceiver;
  let tenant: TestTenant;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    t = await createTestApp({
      WEBHOOK_CA_FILE: receiver.caFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_SWEEP_MS: '1000',
      QUEUE_PREFIX: `wh_${newRunId()}`,
    });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('delivers a signed lead.created, retries 500s and records attempts', async () => {
    const put = await t
      .http()
      .put(`/admin/v1/tenants/${tenant.slug}/webhook`)
      .set('Authorization', `Bearer ${t.adminToken}`)
      .send({ url: receiver.url, events: ['lead.created'] });
    expect(put.status).toBe(200);
    const secret: string = put.body.secret;
    expect(secret).toMatch(/^whsec_/);
    receiver.script = (n) => ({ status: n < 2 ? 500 : 200 });

    const referrer = await upsertUser(t, tenant.key);
    const leadId = await createLead(t, tenant.key, referrer.serviceUserId);
    const requests = await receiver.waitFor(3);
    expect(requests.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(requests.map((r) => r.body.toString('hex'))).size).toBe(1);
    const body = requests[2].body;
    expect(requests[2].headers['x-service-signature']).toBe(
      createHmac('sha256', secret).update(body).digest('hex'),
    );
    const envelope = JSON.parse(body.toString('utf8'));
    expect(envelope).toMatchObject({ event_type: 'lead.created', payload: { lead_id: leadId } });

    let detail: { body: { status: string; attempts: { status_code: number }[] } } = {
      body: { status: 'unknown', attempts: [] },
    };
    for (let i = 0; i < 50; i++) {
      detail = await t
        .http()
        .get(`/admin/v1/tenants/${tenant.slug}/webhook/events/${envelope.event_id}`)
        .set('Authorization', `Bearer ${t.adminToken}`);
      if (detail.body.status === 'delivered') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(detail.body.status).toBe('delivered');
    expect(detail.body.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([
      500, 500, 200,
    ]);
  });
});
