/**
 * The partner applications specs' shared setup (test/e2e/applications/*.e2e-spec.ts): one app per
 * file mailing through a real SMTP catcher, a fresh tenant with an owner, a manager and a viewer
 * before every test, and the application calls (docs/partners.md, "Applications"): the Embed
 * endpoint, the mailed link and its confirmation page over plain HTTP as a browser posts it, and
 * the Admin API. Fields of the returned object are set by the hooks: read them inside a test.
 */
import { createStaffToken, createTenant, type TestTenant } from '../factories/tenants.factory';
import { adminApi, federationApi } from './api-client';
import { createTestApp, type TestApp } from './create-test-app';
import { cookiePairs, hiddenField } from './pages-http';
import { type CaughtMail, type SmtpCatcher, startSmtpCatcher } from './smtp-catcher';

export const APPLICATION_ID = /^apl_[0-9A-HJKMNP-TV-Z]{26}$/;
export const OWN_ORIGIN = 'http://localhost:3000';

export interface Application {
  application_id: string;
  group_id: string;
  email: string;
  full_name: string;
  answers: Record<string, string>;
  status: string;
  referrer_user_id: string | null;
  user_id: string | null;
  reason: string | null;
  created_at: string;
  decided_at: string | null;
}

export function applicationsSuite(env: Record<string, string> = {}) {
  const s = {} as {
    t: TestApp;
    smtp: SmtpCatcher;
    tenant: TestTenant;
    origin: string;
    owner: string;
    manager: string;
    viewer: string;
  };
  beforeAll(async () => {
    s.smtp = await startSmtpCatcher();
    s.t = await createTestApp({ SMTP_URL: s.smtp.url, ...env });
  });
  afterAll(async () => {
    await s.t?.close();
    await s.smtp?.close();
  });
  beforeEach(async () => {
    s.tenant = await createTenant(s.t);
    s.origin = `https://${s.tenant.slug}.example`;
    [s.owner, s.manager, s.viewer] = await Promise.all([
      createStaffToken(s.t, s.tenant.slug, 'owner'),
      createStaffToken(s.t, s.tenant.slug, 'manager'),
      createStaffToken(s.t, s.tenant.slug, 'viewer'),
    ]);
  });

  const base = (slug = s.tenant.slug) => `/admin/v1/tenants/${slug}`;
  const as = (token = s.manager) => adminApi(s.t, token).raw;

  const helpers = {
    fed: (key = s.tenant.key) => federationApi(s.t, key),
    /** Creates a group taking applications (201 or the test fails) and answers it. */
    async group(
      body: Record<string, unknown> = {},
      signup: Record<string, unknown> = {},
    ): Promise<{ group_id: string; slug: string; name: string }> {
      const res = await as()('post', `${base()}/groups`, {
        name: 'Bloggers',
        slug: `g-${Math.random().toString(36).slice(2, 8)}`,
        signup: { enabled: true, fields: [], ...signup },
        ...body,
      });
      if (res.status !== 201) throw new Error(`group: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    /** Opens the tenant's default group to applications with these questions. */
    async openDefault(fields: unknown[] = [], autoApprove = false): Promise<string> {
      const [row] = await s.t.db.query(
        `SELECT id FROM groups WHERE tenant_id = $1 AND slug = 'default'`,
        [s.tenant.orgId],
      );
      const res = await as()('patch', `${base()}/groups/${row.id}`, {
        signup: { enabled: true, auto_approve: autoApprove, fields },
      });
      if (res.status !== 200) throw new Error(`open: ${res.status} ${JSON.stringify(res.body)}`);
      return row.id as string;
    },
    /** POST /embed/v1/applications as the tenant's page sends it. */
    submit: (body: Record<string, unknown>, origin: string | null = s.origin, slug?: string) => {
      const req = s.t.http().post(`/embed/v1/applications?tenant=${slug ?? s.tenant.slug}`);
      if (origin !== null) req.set('Origin', origin);
      return req.send(body);
    },
    /** The next mail to `email` (waits for it). */
    mail: (email: string, timeoutMs?: number): Promise<CaughtMail> => s.smtp.take(email, timeoutMs),
    /** The path of the confirmation link in a mail (`/p/<slug>/join/confirm?token=…`). */
    linkOf(mail: CaughtMail): string {
      const url = /https?:\/\/\S+\/p\/\S+\/join\/confirm\?token=[A-Za-z0-9_-]+/.exec(
        mail.text,
      )?.[0];
      if (!url) throw new Error(`no confirmation link in: ${mail.text}`);
      const parsed = new URL(url);
      return `${parsed.pathname}${parsed.search}`;
    },
    /** Opens the confirmation link and presses its one button, as a browser does. */
    async confirm(link: string) {
      const page = await s.t.http().get(link);
      const token = new URL(link, OWN_ORIGIN).searchParams.get('token') ?? '';
      const res = await s.t
        .http()
        .post(`/p/${s.tenant.slug}/join/confirm`)
        .set('Cookie', cookiePairs(page).join('; '))
        .set('Origin', OWN_ORIGIN)
        .type('form')
        .send({ token, _csrf: hiddenField(page.text, '_csrf') ?? '' });
      return { page, res };
    },
    /** An application submitted and confirmed: pending (or approved, auto-approving). */
    async pending(body: Record<string, unknown>): Promise<string> {
      const res = await helpers.submit(body);
      if (res.status !== 201) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
      const { res: confirmed } = await helpers.confirm(
        helpers.linkOf(await helpers.mail(body.email as string)),
      );
      if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status}`);
      return res.body.application_id as string;
    },
    list: (query = '', token = s.manager, slug?: string) =>
      as(token)('get', `${base(slug)}/applications${query}`),
    get: (id: string, token = s.manager, slug?: string) =>
      as(token)('get', `${base(slug)}/applications/${id}`),
    approve: (id: string, body: Record<string, unknown> = {}, token = s.manager, slug?: string) =>
      as(token)('post', `${base(slug)}/applications/${id}/approve`, body),
    reject: (id: string, body: Record<string, unknown>, token = s.manager, slug?: string) =>
      as(token)('post', `${base(slug)}/applications/${id}/reject`, body),
    /** The outbox's events of a type for the tenant, oldest first. */
    async events(type: string, orgId = s.tenant.orgId): Promise<Record<string, unknown>[]> {
      const rows: { body: string }[] = await s.t.db.query(
        `SELECT body FROM events WHERE tenant_id = $1 AND event_type = $2 ORDER BY occurred_at, id`,
        [orgId, type],
      );
      return rows.map((r) => (JSON.parse(r.body) as { payload: Record<string, unknown> }).payload);
    },
  };
  return Object.assign(s, helpers);
}
