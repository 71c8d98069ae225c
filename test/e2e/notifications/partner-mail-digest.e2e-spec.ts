/**
 * The daily digest (docs/notifications.md, SPEC 16): 1,000 commissions of one partner inside one
 * digest window make exactly one digest mail, carrying all of them; a second request finds
 * nothing to send; a partner with nothing waiting gets no digest.
 */
import { createTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createLead } from '../../factories/money.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { type SmtpCatcher, startSmtpCatcher } from '../../utils/smtp-catcher';

jest.setTimeout(120_000);

const COMMISSIONS = 1000;

let t: TestApp;
let smtp: SmtpCatcher;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ SMTP_URL: smtp.url, NOTIFICATION_POLL_MS: '200' });
});

afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

it(`${COMMISSIONS} commissions for one partner in one window make one digest mail`, async () => {
  const tenant = await createTenant(t, {
    locale: 'ru-RU',
    program: { lead_bonus_kopecks: 10_000, tiers: [{ tier: 'referrer', percent_bp: 1000 }] },
  });
  const email = `d-${tenant.slug}@example.org`;
  const quiet = `q-${tenant.slug}@example.org`;
  const partner = await upsertUser(t, tenant.key, { email, full_name: 'Дарья' });
  await upsertUser(t, tenant.key, { email: quiet, full_name: 'Quiet' });
  for (let i = 0; i < COMMISSIONS; i += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, COMMISSIONS - i) }, (_, k) =>
        createLead(t, tenant.key, partner.serviceUserId, {
          contact: { name: `Lead ${i + k}`, email: `l${i + k}@example.org` },
        }),
      ),
    );
  }
  // The worker reads every bonus.pending into the partner's digest (bonus.pending is daily).
  const waiting = async () => {
    const [{ n }]: { n: number }[] = await t.db.query(
      `SELECT count(*)::int AS n FROM notification_items WHERE tenant_id = $1 AND digest_id IS NULL`,
      [tenant.orgId],
    );
    return n;
  };
  const until = Date.now() + 60_000;
  while ((await waiting()) < COMMISSIONS && Date.now() < until)
    await new Promise((r) => setTimeout(r, 200));
  expect(await waiting()).toBe(COMMISSIONS);
  expect(smtp.pending(email)).toBe(0);

  const admin = adminApi(t, t.adminToken);
  const now = await admin.raw('post', `/admin/v1/tenants/${tenant.slug}/notifications/digests`);
  expect(now.status).toBe(202);
  expect(now.body).toEqual({ digests: 1 });

  const digest = await smtp.take(email, 20_000);
  expect(digest.subject).toBe(`Tenant ${tenant.slug}: сводка за день`);
  expect(digest.text.split('\n').filter((l) => l.startsWith('- Новое вознаграждение')).length).toBe(
    COMMISSIONS,
  );
  expect(digest.headers['message-id']).toMatch(/^<ntf\.[0-9a-f]{64}@localhost>$/);
  expect(digest.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');

  const again = await admin.raw('post', `/admin/v1/tenants/${tenant.slug}/notifications/digests`);
  expect(again.body).toEqual({ digests: 0 });
  await new Promise((r) => setTimeout(r, 1500));
  expect(smtp.mailsTo(email)).toHaveLength(1);
  expect(smtp.mailsTo(quiet)).toHaveLength(0);

  const log = await admin.raw(
    'get',
    `/admin/v1/tenants/${tenant.slug}/notifications?type=digest&status=sent`,
  );
  expect(log.body.pagination.total).toBe(1);
  expect(log.body.items[0]).toMatchObject({ user_id: partner.memberId, to: email, attempts: 1 });

  // Unsubscribing from a digest turns off every type it carried.
  const url = new URL(/^<([^>]+)>$/.exec(digest.headers['list-unsubscribe'])![1]);
  const res = await t
    .http()
    .post(`${url.pathname}${url.search}`)
    .type('form')
    .send('List-Unsubscribe=One-Click');
  expect(res.status).toBe(200);
  const prefs = await admin.raw(
    'get',
    `/admin/v1/tenants/${tenant.slug}/users/${partner.serviceUserId}/notifications`,
  );
  expect(prefs.body.preferences['bonus.pending']).toBe('off');
  expect(prefs.body.preferences['payout.paid']).toBe('instant');
});

it('at the digest hour, items waiting since before it go out as one digest without being asked', async () => {
  const tenant = await createTenant(t, {
    locale: 'en-US',
    program: { lead_bonus_kopecks: 10_000, tiers: [{ tier: 'referrer', percent_bp: 1000 }] },
    notifications: { digest_hour_utc: new Date().getUTCHours() },
  });
  const email = `h-${tenant.slug}@example.org`;
  const partner = await upsertUser(t, tenant.key, { email, full_name: 'Hour' });
  for (let i = 0; i < 3; i++) await createLead(t, tenant.key, partner.serviceUserId);
  const waiting = async () =>
    (
      await t.db.query(
        `SELECT count(*)::int AS n FROM notification_items WHERE tenant_id = $1 AND digest_id IS NULL`,
        [tenant.orgId],
      )
    )[0].n as number;
  const until = Date.now() + 20_000;
  while ((await waiting()) < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  expect(await waiting()).toBe(3);
  // Made this hour, they wait for tomorrow's digest; a day older, today's hour has passed them.
  await new Promise((r) => setTimeout(r, 600));
  expect(smtp.mailsTo(email)).toHaveLength(0);
  await t.db.query(
    `UPDATE notification_items SET occurred_at = occurred_at - interval '1 day' WHERE tenant_id = $1`,
    [tenant.orgId],
  );
  // Workers look for due digests every ten seconds.
  const digest = await smtp.take(email, 25_000);
  expect(digest.subject).toBe(`Tenant ${tenant.slug}: your daily summary`);
  expect(digest.text.split('\n').filter((l) => l.startsWith('- New commission')).length).toBe(3);
  await new Promise((r) => setTimeout(r, 600));
  expect(smtp.mailsTo(email)).toHaveLength(1);
});
