/**
 * docs/security.md over plain HTTP: the HTML pages (admin pages under /org and the
 * sign-in popup under /oauth) take only `application/x-www-form-urlencoded` posts (415 otherwise),
 * every post must carry its form's token (403 otherwise), a post from another origin is refused,
 * and a refused post changes nothing in the database. Sign-in forms (admin sign-in, the popup's
 * email and code steps) carry a pre-session token bound to a cookie (login CSRF).
 */
import { randomBytes } from 'node:crypto';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant, type TestTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { freePort } from '../../utils/browser';
import { createTestApp, type TestApp } from '../../utils/create-test-app';
import { type HttpsReceiver, startHttpsReceiver } from '../../utils/https-receiver';
import { formTicket, hiddenField, orgCsrf, orgSignIn } from '../../utils/pages-http';
import { type SmtpCatcher, startSmtpCatcher } from '../../utils/smtp-catcher';
import { newRunId } from '../../utils/test-env';
import { tenantState } from '../../utils/admin-pages-suite';

type Fields = [string, string][];

/** How a forged post is sent, and what the page must answer. */
interface Variant {
  name: string;
  status: 415 | 403;
  /** Builds the request from the form's real fields (whose `_csrf` is the session's own). */
  build: (fields: Fields) => { headers: Record<string, string>; body?: string | Uint8Array };
}

const urlencoded = (fields: Fields) => new URLSearchParams(fields).toString();
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const withoutToken = (fields: Fields) => fields.filter(([k]) => k !== '_csrf');

const VARIANTS: Variant[] = [
  {
    // What <form enctype="text/plain"> sends: the fields as name=value lines.
    name: 'text/plain',
    status: 415,
    build: (fields) => ({
      headers: { 'Content-Type': 'text/plain' },
      body: fields.map(([k, v]) => `${k}=${v}\r\n`).join(''),
    }),
  },
  {
    name: 'multipart/form-data',
    status: 415,
    build: (fields) => {
      const boundary = `----forged${randomBytes(8).toString('hex')}`;
      return {
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        body:
          fields
            .map(
              ([k, v]) =>
                `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
            )
            .join('') + `--${boundary}--\r\n`,
      };
    },
  },
  {
    // Bytes without a Content-Type header (fetch adds none for a Uint8Array).
    name: 'no Content-Type',
    status: 415,
    build: (fields) => ({ headers: {}, body: new TextEncoder().encode(urlencoded(fields)) }),
  },
  {
    name: 'no body at all',
    status: 415,
    build: () => ({ headers: {} }),
  },
  {
    name: 'a missing token',
    status: 403,
    build: (fields) => ({ headers: FORM, body: urlencoded(withoutToken(fields)) }),
  },
  {
    name: 'a wrong token',
    status: 403,
    build: (fields) => ({
      headers: FORM,
      body: urlencoded([...withoutToken(fields), ['_csrf', 'x'.repeat(32)]]),
    }),
  },
  {
    // The right token, but the post comes from a page of another origin.
    name: 'a foreign Origin',
    status: 403,
    build: (fields) => ({
      headers: { ...FORM, Origin: 'http://evil.example' },
      body: urlencoded(fields),
    }),
  },
];

describe('HTML pages refuse forged and non-form posts (docs/security.md)', () => {
  let t: TestApp | undefined;
  let receiver: HttpsReceiver | undefined;
  let smtp: SmtpCatcher | undefined;
  let base: string;
  let org: TestTenant;
  let owner: string;
  let cookie: string;
  let csrf: string;

  const app = () => t!;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    smtp = await startSmtpCatcher();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      WEBHOOK_CA_FILE: receiver.caFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
      SMTP_URL: smtp.url,
      QUEUE_PREFIX: `pagescsrf_${newRunId()}`,
    });
    await t.app.listen(port, '127.0.0.1');
    org = await createTenant(t);
    owner = await createStaffToken(t, org.slug, 'owner');
    const chain = await createChain(t, org.key, 2);
    for (let i = 0; i < 2; i++) {
      await registerConversion(t, org.key, {
        lead_id: await createLead(t, org.key, chain[1].serviceUserId),
        amount_kopecks: 10_000,
        external_order_id: `o-${i}`,
      });
    }
    const admin = { Authorization: `Bearer ${t.adminToken}` };
    const put = await t
      .http()
      .put(`/admin/v1/tenants/${org.slug}/webhook`)
      .set(admin)
      .send({ url: receiver.url, events: ['lead.created'], enabled: true });
    expect(put.status).toBe(200);
    const test = await t.http().post(`/admin/v1/tenants/${org.slug}/webhook/test`).set(admin);
    expect(test.body.delivered).toBe(true);
    cookie = await orgSignIn(t.http, owner);
    csrf = await orgCsrf(t.http, cookie, org.slug);
  }, 60_000);

  afterAll(async () => {
    for (const step of [() => t?.close(), () => receiver?.close(), () => smtp?.close()]) {
      try {
        await step();
      } catch {
        // Keep closing the rest.
      }
    }
  });

  /** A raw request (fetch, no redirects followed), so headers and body are exactly as built. */
  async function send(
    path: string,
    request: { headers: Record<string, string>; body?: string | Uint8Array },
    sessionCookie?: string,
  ) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...request.headers, ...(sessionCookie ? { Cookie: sessionCookie } : {}) },
      // A byte body as it is (the lib's BodyInit types it narrower than fetch takes).
      body: request.body as RequestInit['body'],
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', res };
  }

  const stateOf = (tenantId: string) => tenantState(app().db, tenantId);

  /** Every admin action with a plausible form for it, carrying the session's real token. */
  async function actions(): Promise<[string, Fields][]> {
    const [key] = await app().db.query(
      `SELECT id FROM tenant_keys WHERE tenant_id = $1 AND revoked_at IS NULL ORDER BY id LIMIT 1`,
      [org.orgId],
    );
    const [delivery] = await app().db.query(
      `SELECT event_id FROM webhook_deliveries WHERE tenant_id = $1 AND status <> 'pending'
        ORDER BY event_id LIMIT 1`,
      [org.orgId],
    );
    const pending = (
      await app().db.query(
        `SELECT id FROM bonuses WHERE tenant_id = $1 AND status = 'pending' ORDER BY id`,
        [org.orgId],
      )
    ).map((r: { id: string }) => r.id);
    expect(key).toBeDefined();
    expect(delivery).toBeDefined();
    expect(pending.length).toBeGreaterThanOrEqual(2);
    const c: [string, string] = ['_csrf', csrf];
    const at = (path: string) => `/org/${org.slug}/${path}`;
    return [
      [at(`bonuses/${pending[0]}/approve`), [c]],
      [at(`bonuses/${pending[0]}/reject`), [c, [`reason_${pending[0]}`, 'forged']]],
      [at('bonuses/bulk'), [c, ['ids', pending[0]], ['ids', pending[1]], ['action', 'approve']]],
      [at(`integration/keys/${key.id}/revoke`), [c]],
      [at('integration/keys'), [c, ['name', 'stolen']]],
      [at('integration/webhook/secret'), [c]],
      [at('integration/webhook/test'), [c]],
      [at(`webhook-events/${delivery.event_id}/replay`), [c]],
      [at('integration/settings'), [c, ['allowed_origins', 'https://evil.example']]],
      [
        at('integration/webhook'),
        [c, ['url', 'https://evil.example/hook'], ['events', 'lead.created'], ['enabled', 'on']],
      ],
    ];
  }

  it.each(VARIANTS.map((v) => [v.name, v] as const))(
    'admin actions posted with %s change nothing',
    async (_name, variant) => {
      const before = await stateOf(org.orgId);
      const received = receiver!.requests.length;
      const answers: string[] = [];
      for (const [path, fields] of await actions()) {
        const { status, type, res } = await send(path, variant.build(fields), cookie);
        answers.push(`${status} ${type.split(';')[0]} ${path}`);
        expect(res.headers.get('location')).toBeNull();
        expect(await res.text()).toMatch(/^<!doctype html>/i);
      }
      expect(answers).toEqual(
        answers.map((a) => a.replace(/^\d+ \S+/, `${variant.status} text/html`)),
      );
      expect(await stateOf(org.orgId)).toEqual(before);
      expect(receiver!.requests.length).toBe(received);
      // The session itself is still fine: the same token, posted properly, still works.
      expect(
        (await app().http().get(`/org/${org.slug}/bonuses`).set('Cookie', cookie)).status,
      ).toBe(200);
    },
  );

  it('the same action posted as a plain form with the right token (and own Origin) works', async () => {
    const [[path, fields]] = await actions();
    const bonusId = /bonuses\/([^/]+)\/approve/.exec(path)![1];
    const ok = await send(
      path,
      { headers: { ...FORM, Origin: base }, body: urlencoded(fields) },
      cookie,
    );
    expect(ok.status).toBe(303);
    const [{ status }] = await app().db.query(
      `SELECT status FROM bonuses WHERE tenant_id = $1 AND id = $2`,
      [org.orgId, bonusId],
    );
    expect(status).toBe('approved');
  });

  it.each(VARIANTS.map((v) => [v.name, v] as const))(
    'sign-out posted with %s keeps the session',
    async (_name, variant) => {
      const session = await orgSignIn(app().http, owner);
      const token = await orgCsrf(app().http, session, org.slug);
      const res = await send('/org/sign-out', variant.build([['_csrf', token]]), session);
      expect(res.status).toBe(variant.status);
      expect(res.type).toMatch(/^text\/html/);
      const still = await app().http().get(`/org/${org.slug}/bonuses`).set('Cookie', session);
      expect(still.status).toBe(200);
    },
  );

  it.each(VARIANTS.map((v) => [v.name, v] as const))(
    'admin sign-in posted with %s signs nobody in',
    async (_name, variant) => {
      const ticket = await formTicket(app().http, '/org/sign-in');
      expect(ticket.csrf).toBeDefined();
      const res = await send(
        '/org/sign-in',
        variant.build([
          ['token', owner],
          ['_csrf', ticket.csrf!],
        ]),
        ticket.cookie,
      );
      expect(res.status).toBe(variant.status);
      expect(res.type).toMatch(/^text\/html/);
      expect(res.res.headers.getSetCookie().join('\n')).not.toContain('svc_admin=');
    },
  );

  it('admin sign-in needs the pre-session cookie of its own form', async () => {
    const mine = await formTicket(app().http, '/org/sign-in');
    const theirs = await formTicket(app().http, '/org/sign-in');
    expect(mine.cookie).toMatch(/^svc_admin_login=/);
    expect(mine.csrf).not.toBe(theirs.csrf);
    const post = (ticketCookie: string | undefined, token: string | undefined) =>
      send(
        '/org/sign-in',
        {
          headers: FORM,
          body: urlencoded([
            ['token', owner],
            ...(token ? [['_csrf', token] as [string, string]] : []),
          ]),
        },
        ticketCookie,
      );
    for (const [label, res] of [
      ['no cookie', await post(undefined, mine.csrf)],
      ['no field', await post(mine.cookie, undefined)],
      ["another form's field", await post(mine.cookie, theirs.csrf)],
    ] as const) {
      expect(`${label}: ${res.status}`).toBe(`${label}: 403`);
      expect(res.res.headers.getSetCookie().join('\n')).not.toContain('svc_admin=');
    }
    expect((await post(mine.cookie, mine.csrf)).status).toBe(303);
  });

  // ---------------------------------------------------------------------------------------------
  // The popup

  const params = (state: string) => ({
    client_id: org.slug,
    response_type: 'code',
    scope: 'profile:read',
    state,
    popup: '1',
  });
  const authorizePath = (state: string) =>
    `/oauth/authorize?${new URLSearchParams(params(state)).toString()}`;

  /** Email step done properly; returns the ticket (cookie, token) and the mailed code. */
  async function requestCode(email: string, state: string) {
    const ticket = await formTicket(app().http, authorizePath(state));
    expect(ticket.cookie).toMatch(/^svc_login=/);
    expect(ticket.csrf).toBeDefined();
    const sent = await app()
      .http()
      .post('/oauth/authorize/email')
      .set('Cookie', ticket.cookie)
      .type('form')
      .send({ ...params(state), email, _csrf: ticket.csrf! });
    expect(sent.status).toBe(200);
    expect(hiddenField(sent.text, '_csrf')).toBe(ticket.csrf);
    return { ticket, code: (await smtp!.take(email)).code! };
  }

  it.each(VARIANTS.map((v) => [v.name, v] as const))(
    'popup steps posted with %s sign nobody in and spend nothing',
    async (_name, variant) => {
      const member = `m-${randomBytes(4).toString('hex')}@example.com`;
      await upsertUser(app(), org.key, { email: member });
      const state = `st-${randomBytes(4).toString('hex')}`;
      const { ticket, code } = await requestCode(member, state);
      const fields: Fields = [
        ...Object.entries(params(state)),
        ['email', member],
        ['code', code],
        ['_csrf', ticket.csrf!],
      ];
      const forged = await send('/oauth/authorize/code', variant.build(fields), ticket.cookie);
      expect(forged.status).toBe(variant.status);
      expect(forged.type).toMatch(/^text\/html/);
      expect(forged.res.headers.getSetCookie().join('\n')).not.toContain('svc_session=');
      const emailStep = await send(
        '/oauth/authorize/email',
        variant.build([
          ...Object.entries(params(state)),
          ['email', member],
          ['_csrf', ticket.csrf!],
        ]),
        ticket.cookie,
      );
      expect(emailStep.status).toBe(variant.status);
      // The code was not spent (not even a try): posted properly, it signs in.
      const ok = await send(
        '/oauth/authorize/code',
        { headers: FORM, body: urlencoded(fields) },
        ticket.cookie,
      );
      expect(ok.status).toBe(303);
      const session = ok.res.headers.getSetCookie().find((c) => c.startsWith('svc_session='));
      expect(session).toBeDefined();
      const sessionCookie = session!.split(';')[0];

      // The consent form: its token is spent only by a proper post.
      const consent = await app().http().get(authorizePath(state)).set('Cookie', sessionCookie);
      const consentToken = hiddenField(consent.text, '_csrf')!;
      const decision: Fields = [
        ...Object.entries(params(state)),
        ['_csrf', consentToken],
        ['decision', 'allow'],
      ];
      const refused = await send(
        '/oauth/authorize/decision',
        variant.build(decision),
        sessionCookie,
      );
      expect(refused.status).toBe(variant.status);
      expect(await refused.res.text()).not.toContain('auth-success');
      const allowed = await send(
        '/oauth/authorize/decision',
        { headers: FORM, body: urlencoded(decision) },
        sessionCookie,
      );
      expect(allowed.status).toBe(200);
      expect(await allowed.res.text()).toContain('auth-success');
    },
  );

  it('the popup code step needs the pre-session cookie of its own form and refuses foreign origins', async () => {
    const member = `m-${randomBytes(4).toString('hex')}@example.com`;
    await upsertUser(app(), org.key, { email: member });
    const state = `st-${randomBytes(4).toString('hex')}`;
    const { ticket, code } = await requestCode(member, state);
    const other = await formTicket(app().http, authorizePath(state));
    const body = (token?: string) =>
      urlencoded([
        ...Object.entries(params(state)),
        ['email', member],
        ['code', code],
        ...(token ? [['_csrf', token] as [string, string]] : []),
      ]);
    for (const [label, res] of [
      [
        'no cookie',
        await send('/oauth/authorize/code', { headers: FORM, body: body(ticket.csrf) }),
      ],
      [
        'no field',
        await send('/oauth/authorize/code', { headers: FORM, body: body() }, ticket.cookie),
      ],
      [
        "another form's field",
        await send(
          '/oauth/authorize/code',
          { headers: FORM, body: body(other.csrf) },
          ticket.cookie,
        ),
      ],
      [
        'a cross-site Origin',
        await send(
          '/oauth/authorize/code',
          { headers: { ...FORM, Origin: 'http://localhost:1' }, body: body(ticket.csrf) },
          ticket.cookie,
        ),
      ],
      [
        'Origin null',
        await send(
          '/oauth/authorize/code',
          { headers: { ...FORM, Origin: 'null' }, body: body(ticket.csrf) },
          ticket.cookie,
        ),
      ],
    ] as const) {
      expect(`${label}: ${res.status}`).toBe(`${label}: 403`);
      expect(res.res.headers.getSetCookie().join('\n')).not.toContain('svc_session=');
      // The popup's error pages keep window.opener; an expired form offers to start again.
      expect(res.res.headers.get('cross-origin-opener-policy')).toBeNull();
      const restart = `href="${authorizePath(state).replace(/&/g, '&amp;')}"`;
      if (!/Origin/.test(label)) expect(await res.res.text()).toContain(restart);
    }
    // Refused posts spent none of the code's five tries.
    const [{ attempts }] = await app().db.query(
      `SELECT attempts FROM sign_in_codes WHERE tenant_id = $1 AND email = $2`,
      [org.orgId, member],
    );
    expect(attempts).toBe(0);
    const ok = await send(
      '/oauth/authorize/code',
      { headers: FORM, body: body(ticket.csrf) },
      ticket.cookie,
    );
    expect(ok.status).toBe(303);
  });
});
