/**
 * Partner mail (docs/notifications.md, SPEC 16) through a real SMTP server: instant mails from
 * the outbox, branded multipart/alternative with escaped values, the delivery log and resend,
 * one-click unsubscribe (RFC 8058) without a session, permanent refusals suppressing the address,
 * and branding validation. The 1,000-commission digest is in partner-mail-digest.e2e-spec.ts, the
 * crash test in partner-mail-crash.e2e-spec.ts.
 */
import { createLead } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { orgSignIn } from '../../utils/pages-http';
import { type CaughtMail, type SmtpCatcher, startSmtpCatcher } from '../../utils/smtp-catcher';

/** The markup payloads of the security battery (names and lead contacts). */
const XSS = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg onload=alert(1)>",
  '</title><script>alert(2)</script>',
  '<a href="javascript:alert(3)">x</a>',
];
/** What any of them would leave in the HTML if it were not escaped (the logo is the one img). */
const RAW_MARKERS = ['<script', '<img src=x', '<svg', '<a href="javascript', '</title><script'];

let t: TestApp;
let smtp: SmtpCatcher;

beforeAll(async () => {
  smtp = await startSmtpCatcher({ refuse: (a) => (a.startsWith('bounce') ? 550 : undefined) });
  t = await createTestApp({ SMTP_URL: smtp.url, NOTIFICATION_POLL_MS: '200' });
});

afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const admin = () => adminApi(t, t.adminToken);

async function tenantWithLeadBonus(extra: Record<string, unknown> = {}): Promise<TestTenant> {
  return createTenant(t, {
    locale: 'en-US',
    program: { lead_bonus_kopecks: 50_000, tiers: [{ tier: 'referrer', percent_bp: 1000 }] },
    ...extra,
  });
}

async function setModes(tenant: TestTenant, userId: string, preferences: Record<string, string>) {
  const res = await admin().raw(
    'put',
    `/admin/v1/tenants/${tenant.slug}/users/${userId}/notifications`,
    { preferences },
  );
  expect(res.status).toBe(200);
  return res.body as { preferences: Record<string, string> };
}

async function logOf(tenant: TestTenant, query = '') {
  const res = await admin().raw('get', `/admin/v1/tenants/${tenant.slug}/notifications${query}`);
  expect(res.status).toBe(200);
  return res.body as {
    items: Record<string, unknown>[];
    pagination: { total: number };
  };
}

async function until<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const unsubscribeUrl = (mail: CaughtMail) =>
  /^<([^>]+)>$/.exec(mail.headers['list-unsubscribe'])![1];

describe('partner mail', () => {
  it('mails a new commission at once when asked, branded, multipart, with every value escaped', async () => {
    const tenant = await tenantWithLeadBonus({
      branding: {
        from_name: 'Acme partners',
        reply_to: 'partners@acme.example',
        accent_color: '#0F766E',
        logo_url: 'https://acme.example/logo.png',
      },
    });
    const email = `p-${tenant.slug}@example.org`;
    const partner = await upsertUser(t, tenant.key, { email, full_name: XSS[0] + XSS[1] });
    await setModes(tenant, partner.serviceUserId, { 'bonus.pending': 'instant' });
    for (const [i, name] of XSS.entries())
      await createLead(t, tenant.key, partner.serviceUserId, {
        contact: { name, email: `lead${i}@example.org` },
      });

    const mails: CaughtMail[] = [];
    for (let i = 0; i < XSS.length; i++) mails.push(await smtp.take(email));
    for (const mail of mails) {
      expect(mail.headers['content-type']).toMatch(/^multipart\/alternative/);
      expect(mail.headers['message-id']).toMatch(/^<ntf\.[0-9a-f]{64}@localhost>$/);
      expect(mail.headers['list-unsubscribe']).toMatch(
        /^<http:\/\/localhost:3000\/notifications\/unsubscribe\?token=[\w.-]+>$/,
      );
      expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
      expect(mail.headers['from']).toContain('Acme partners');
      expect(mail.headers['reply-to']).toBe('partners@acme.example');
      expect(mail.subject).toMatch(
        new RegExp(`^Tenant ${tenant.slug}: a new commission of .*500\\.00`),
      );
      const html = mail.html!;
      expect(html).toContain('#0F766E');
      expect(html).toContain('https://acme.example/logo.png');
      for (const marker of RAW_MARKERS) expect(html).not.toContain(marker);
    }
    expect(mails.every((m) => m.html!.includes('Hello, &lt;script>alert(1)&lt;/script>'))).toBe(
      true,
    );
    // Every lead's name is in its own mail, escaped in the HTML and as given in the text.
    for (const name of XSS) expect(mails.some((m) => m.text.includes(name))).toBe(true);
    expect(new Set(mails.map((m) => m.headers['message-id'])).size).toBe(XSS.length);

    const log = await until(async () => {
      const l = await logOf(tenant, `?user_id=${partner.serviceUserId}&status=sent`);
      return l.pagination.total === XSS.length ? l : undefined;
    });
    expect(log.items[0]).toMatchObject({
      user_id: partner.memberId,
      type: 'bonus.pending',
      status: 'sent',
      to: email,
      attempts: 1,
      last_error: null,
    });
    expect(String(log.items[0].notification_id)).toMatch(/^ntf_/);

    // A resend is the same mail: the same Message-ID.
    const first = log.items[0];
    const resent = await admin().raw(
      'post',
      `/admin/v1/tenants/${tenant.slug}/notifications/${String(first.notification_id)}/resend`,
    );
    expect(resent.status).toBe(200);
    const again = await smtp.take(email);
    expect(again.headers['message-id']).toBe(first.message_id);
  });

  it('one-click unsubscribe: a POST with no cookie turns that type off; other types still come', async () => {
    const tenant = await tenantWithLeadBonus();
    const email = `u-${tenant.slug}@example.org`;
    const partner = await upsertUser(t, tenant.key, { email, full_name: 'Anna' });
    await setModes(tenant, partner.serviceUserId, {
      'bonus.pending': 'instant',
      'downline.joined': 'instant',
    });
    await createLead(t, tenant.key, partner.serviceUserId);
    const mail = await smtp.take(email);
    const url = new URL(unsubscribeUrl(mail));
    const path = `${url.pathname}${url.search}`;

    // The GET shows a page and changes nothing.
    const page = await t.http().get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('bonus.pending');
    const before = await admin().raw(
      'get',
      `/admin/v1/tenants/${tenant.slug}/users/${partner.serviceUserId}/notifications`,
    );
    expect(before.body.preferences['bonus.pending']).toBe('instant');

    // A tampered token is refused.
    const token = url.searchParams.get('token')!;
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    const refused = await t
      .http()
      .post(`/notifications/unsubscribe?token=${tampered}`)
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(refused.status).toBe(400);

    // What a mail client sends (RFC 8058): no cookie, no CSRF token, another site's Origin.
    const done = await t
      .http()
      .post(path)
      .set('Origin', 'https://mail.example')
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(done.status).toBe(200);
    const after = await admin().raw(
      'get',
      `/admin/v1/tenants/${tenant.slug}/users/${partner.serviceUserId}/notifications`,
    );
    expect(after.body.preferences).toMatchObject({
      'bonus.pending': 'off',
      'downline.joined': 'instant',
    });
    // multipart/form-data is taken too.
    const multipart = await t.http().post(path).field('List-Unsubscribe', 'One-Click');
    expect(multipart.status).toBe(200);

    // No more commission mail; a new team member is still mailed.
    await createLead(t, tenant.key, partner.serviceUserId);
    await upsertUser(t, tenant.key, {
      full_name: 'Boris',
      referrer_user_id: partner.serviceUserId,
    });
    const joined = await smtp.take(email);
    expect(joined.subject).toContain('Boris joined your team');
    await new Promise((r) => setTimeout(r, 1000));
    expect(smtp.pending(email)).toBe(0);
  });

  it('a permanent refusal (5xx) fails the mail and suppresses the address until staff clear it', async () => {
    const tenant = await tenantWithLeadBonus();
    const email = `bounce-${tenant.slug}@example.org`;
    const partner = await upsertUser(t, tenant.key, { email });
    await setModes(tenant, partner.serviceUserId, { 'bonus.pending': 'instant' });
    await createLead(t, tenant.key, partner.serviceUserId);
    const failed = await until(async () => {
      const l = await logOf(tenant, '?status=failed');
      return l.items[0];
    });
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, to: email });
    expect(String(failed.last_error)).toContain('550');

    await createLead(t, tenant.key, partner.serviceUserId);
    await until(async () => (await logOf(tenant, '?status=suppressed')).items[0]);

    const cleared = await admin().raw(
      'delete',
      `/admin/v1/tenants/${tenant.slug}/notifications/suppressions/${email}`,
    );
    expect(cleared.status).toBe(204);
    const again = await admin().raw(
      'delete',
      `/admin/v1/tenants/${tenant.slug}/notifications/suppressions/${email}`,
    );
    expect(again.status).toBe(404);
    const bad = await admin().raw(
      'get',
      `/admin/v1/tenants/${tenant.slug}/notifications?status=bogus`,
    );
    expect(bad.status).toBe(400);
  });

  it('validates branding: one-line names, #RRGGBB, an https logo', async () => {
    const tenant = await tenantWithLeadBonus();
    for (const branding of [
      { from_name: 'Acme\r\nBcc: victim@example.org' },
      { accent_color: 'red' },
      { logo_url: 'http://acme.example/logo.png' },
      { reply_to: 'a@b.example\nBcc: x@y.example' },
    ]) {
      const res = await admin().raw('patch', `/admin/v1/tenants/${tenant.slug}`, { branding });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    const ok = await admin().raw('patch', `/admin/v1/tenants/${tenant.slug}`, {
      branding: { accent_color: '#112233' },
      notifications: {
        digest_hour_utc: 6,
        templates: { 'payout.paid': { subject: 'Paid, {name}' } },
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.branding).toEqual({
      from_name: null,
      reply_to: null,
      accent_color: '#112233',
      logo_url: null,
    });
    expect(ok.body.notifications.digest_hour_utc).toBe(6);
    const badTemplate = await admin().raw('patch', `/admin/v1/tenants/${tenant.slug}`, {
      notifications: { templates: { 'payout.paid': { subject: 'a\nb' } } },
    });
    expect(badTemplate.status).toBe(400);
  });

  it('the console previews every type in the tenant language, with its overrides, and shows the log', async () => {
    const tenant = await tenantWithLeadBonus({
      locale: 'ru-RU',
      notifications: { templates: { 'payout.paid': { subject: 'Деньги пришли, {name} <b>' } } },
    });
    const viewer = await createStaffToken(t, tenant.slug, 'viewer');
    const cookie = await orgSignIn(t.http, viewer);
    const res = await t.http().get(`/org/${tenant.slug}/notifications`).set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.text).toContain('Письма партнёрам');
    for (const type of ['bonus.pending', 'payout.paid', 'downline.joined', 'digest'])
      expect(res.text).toContain(`<h3>${type}</h3>`);
    expect(res.text).toContain('Деньги пришли, Anna Petrova &lt;b>');
    expect(res.text).toContain('сводка за день');
    const en = await t
      .http()
      .get(`/org/${tenant.slug}/notifications?lang=en`)
      .set('Cookie', cookie);
    expect(en.text).toContain('Partner mail');
  });
});
