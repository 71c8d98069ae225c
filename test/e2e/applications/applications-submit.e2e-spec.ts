import { upsertUser } from '../../factories/users.factory';
import { APPLICATION_ID, applicationsSuite, OWN_ORIGIN } from '../../utils/applications-suite';
import { hiddenField } from '../../utils/pages-http';

/**
 * docs/partners.md, "Applications": the Embed endpoint, its one live application per email under
 * concurrency, its mail (at most one per 10 minutes, never the submitted name), the mailed
 * link's page (a GET confirms nothing) and its refusals.
 */
describe('partner applications: submitting and confirming', () => {
  const s = applicationsSuite();
  const FIELDS = [
    { name: 'site', label: 'Your site', type: 'url', required: true },
    { name: 'about', label: 'About you', type: 'textarea', required: false },
  ];

  it('50 identical submissions at once make one application and one mail', async () => {
    await s.openDefault(FIELDS);
    const body = {
      email: 'Racer@Example.com',
      full_name: 'Rita Racer',
      answers: { site: 'https://rita.example' },
    };
    const answers = await Promise.all(Array.from({ length: 50 }, () => s.submit(body)));
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(49).fill(200), 201]);
    const ids = new Set(answers.map((r) => r.body.application_id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(APPLICATION_ID);
    for (const r of answers)
      expect(r.body).toEqual({ application_id: [...ids][0], status: 'unconfirmed' });
    const [{ count }] = await s.t.db.query(
      `SELECT count(*)::int AS count FROM applications WHERE tenant_id = $1`,
      [s.tenant.orgId],
    );
    expect(count).toBe(1);
    const mail = await s.mail('racer@example.com');
    expect(mail.text).toContain(`/p/${s.tenant.slug}/join/confirm?token=`);
    await new Promise((r) => setTimeout(r, 500));
    expect(s.smtp.mailsTo('racer@example.com')).toHaveLength(1);
  });

  it("a link scanner's GET confirms nothing; the button's POST confirms once", async () => {
    await s.openDefault(FIELDS);
    const submitted = await s.submit({
      email: 'scan@example.com',
      full_name: 'Sam Scanned',
      answers: { site: 'https://sam.example' },
    });
    const link = s.linkOf(await s.mail('scan@example.com'));
    for (let i = 0; i < 3; i++) {
      const page = await s.t.http().get(link);
      expect(page.status).toBe(200);
      expect(page.text).toContain('data-action="submit"');
      expect(page.text).toContain('Sam Scanned');
    }
    const id = submitted.body.application_id as string;
    expect((await s.get(id)).body.status).toBe('unconfirmed');
    expect(await s.events('partner.applied')).toEqual([]);

    const { res } = await s.confirm(link);
    expect(res.status).toBe(200);
    expect((await s.get(id)).body.status).toBe('pending');
    expect(await s.events('partner.applied')).toEqual([
      { application_id: id, group_id: expect.any(String), referrer_user_id: null },
    ]);
    // Used: the link now leads nowhere, and a second post confirms nothing more.
    expect((await s.t.http().get(link)).status).toBe(404);
    expect((await s.confirm(link)).res.status).toBe(404);
    expect(await s.events('partner.applied')).toHaveLength(1);
  });

  it('a post without the page’s token confirms nothing', async () => {
    await s.openDefault();
    await s.submit({ email: 'forged@example.com', full_name: 'F', answers: {} });
    const link = s.linkOf(await s.mail('forged@example.com'));
    const token = new URL(link, OWN_ORIGIN).searchParams.get('token');
    const res = await s.t
      .http()
      .post(`/p/${s.tenant.slug}/join/confirm`)
      .type('form')
      .send({ token, _csrf: 'x' });
    expect(res.status).toBe(403);
    const evil = await s.t
      .http()
      .post(`/p/${s.tenant.slug}/join/confirm`)
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ token });
    expect(evil.status).toBe(403);
    const [row] = await s.t.db.query(`SELECT status FROM applications WHERE tenant_id = $1`, [
      s.tenant.orgId,
    ]);
    expect(row.status).toBe('unconfirmed');
  });

  it('a repeat before confirmation replaces the data, and the page shows it; no second mail', async () => {
    await s.openDefault(FIELDS);
    const other = await s.group({ name: 'Video makers' });
    const recruiter = await upsertUser(s.t, s.tenant.key, { full_name: 'Rex Recruiter' });
    const first = await s.submit({
      email: 'again@example.com',
      full_name: 'First Name',
      answers: { site: 'https://first.example' },
    });
    expect(first.status).toBe(201);
    const link = s.linkOf(await s.mail('again@example.com'));
    const { signRef } = await import('../../../src/members/signed-ref');
    const ref = signRef(
      { t: s.tenant.orgId, r: recruiter.serviceUserId, d: 'dl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T' },
      s.t.config.refSigningSecret,
    );
    const second = await s.submit({
      group: other.slug,
      email: 'AGAIN@example.com',
      full_name: 'Second Name',
      answers: {},
      ref,
    });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      application_id: first.body.application_id,
      status: 'unconfirmed',
    });
    const page = await s.t.http().get(link);
    expect(page.text).toContain('Second Name');
    expect(page.text).not.toContain('First Name');
    expect(page.text).toContain('Video makers');
    expect(page.text).toContain('Rex Recruiter');
    await new Promise((r) => setTimeout(r, 300));
    expect(s.smtp.mailsTo('again@example.com')).toHaveLength(1);
    const app = await s.get(first.body.application_id);
    expect(app.body).toMatchObject({
      group_id: other.group_id,
      full_name: 'Second Name',
      answers: {},
      referrer_user_id: recruiter.serviceUserId,
    });
  });

  it('a repeat while pending answers it unchanged', async () => {
    await s.openDefault();
    const id = await s.pending({ email: 'pend@example.com', full_name: 'Pat', answers: {} });
    const again = await s.submit({ email: 'pend@example.com', full_name: 'Changed', answers: {} });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ application_id: id, status: 'pending' });
    expect((await s.get(id)).body.full_name).toBe('Pat');
  });

  it("a member's email gets the same answer and a mail with a portal link, never a confirmation", async () => {
    await s.openDefault();
    await upsertUser(s.t, s.tenant.key, { email: 'Member@Example.com', full_name: 'Mia Member' });
    const stranger = await s.submit({ email: 'new@example.com', full_name: 'N', answers: {} });
    const member = await s.submit({
      email: 'member@example.com',
      full_name: 'Evil <b>Spam</b> Text',
      answers: {},
    });
    expect(member.status).toBe(stranger.status);
    expect(Object.keys(member.body)).toEqual(Object.keys(stranger.body));
    expect(member.body.status).toBe(stranger.body.status);
    const mail = await s.mail('member@example.com');
    expect(mail.text).toContain(`http://localhost:3000/p/${s.tenant.slug}`);
    expect(mail.text).not.toContain('/join/confirm');
    expect(mail.text).not.toContain('Spam');
    const again = await s.submit({ email: 'member@example.com', full_name: 'x', answers: {} });
    expect(again.status).toBe(200);
    expect(again.body.application_id).toBe(member.body.application_id);
  });

  it('the mail never repeats the submitted name', async () => {
    await s.openDefault();
    await s.submit({ email: 'spam@example.com', full_name: 'BUY CHEAP PILLS', answers: {} });
    const mail = await s.mail('spam@example.com');
    expect(mail.text).not.toContain('PILLS');
    expect(mail.subject).not.toContain('PILLS');
  });

  it('refusals: a closed or unknown group 404, a missing answer 400, a foreign Origin 403', async () => {
    const closed = await s.submit({ email: 'a@example.com', full_name: 'A', answers: {} });
    expect(closed.status).toBe(404);
    expect(closed.body.code).toBe('group_not_found');
    await s.openDefault(FIELDS);
    const unknown = await s.submit({
      group: 'nope-group',
      email: 'a@example.com',
      full_name: 'A',
      answers: {},
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('group_not_found');
    const closedGroup = await s.group({}, { enabled: false });
    const shut = await s.submit({
      group: closedGroup.slug,
      email: 'a@example.com',
      full_name: 'A',
      answers: {},
    });
    expect(shut.status).toBe(404);
    expect(shut.body.code).toBe('group_not_found');

    const missing = await s.submit({
      email: 'a@example.com',
      full_name: 'A',
      answers: { about: 'x', extra: 'y' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('validation_failed');
    expect(missing.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'answers.site', message: 'is required' },
        { field: 'answers.extra', message: 'is not a question of this group' },
      ]),
    );
    const badUrl = await s.submit({
      email: 'a@example.com',
      full_name: 'A',
      answers: { site: 'javascript:alert(1)' },
    });
    expect(badUrl.status).toBe(400);
    const unknownField = await s.submit({
      email: 'a@example.com',
      full_name: 'A',
      answers: {},
      role: 'leader',
    });
    expect(unknownField.status).toBe(400);
    const badEmail = await s.submit({ email: 'not-an-email', full_name: 'A', answers: {} });
    expect(badEmail.status).toBe(400);
    const badRef = await s.submit({
      email: 'a@example.com',
      full_name: 'A',
      answers: { site: 'https://a.example' },
      ref: 'x.y',
    });
    expect(badRef.status).toBe(422);
    expect(badRef.body.code).toBe('invalid_ref');

    const foreign = await s.submit(
      { email: 'a@example.com', full_name: 'A', answers: { site: 'https://a.example' } },
      'https://evil.example',
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('origin_not_allowed');
    const none = await s.submit(
      { email: 'a@example.com', full_name: 'A', answers: { site: 'https://a.example' } },
      null,
    );
    expect(none.status).toBe(403);
    expect(none.body.code).toBe('origin_not_allowed');
    const otherTenant = await s.submit(
      { email: 'a@example.com', full_name: 'A', answers: { site: 'https://a.example' } },
      s.origin,
      'no-such-tenant-x',
    );
    expect(otherTenant.status).toBe(404);
    expect(otherTenant.body.code).toBe('tenant_not_found');
    const [{ count }] = await s.t.db.query(
      `SELECT count(*)::int AS count FROM applications WHERE tenant_id = $1`,
      [s.tenant.orgId],
    );
    expect(count).toBe(0);

    // The service's own pages may call.
    const own = await s.submit(
      { email: 'own@example.com', full_name: 'Own', answers: { site: 'https://own.example' } },
      OWN_ORIGIN,
    );
    expect(own.status).toBe(201);
    expect(own.headers['access-control-allow-origin']).toBe(OWN_ORIGIN);
  });

  it('hostile strings in the name and answers are escaped on the confirmation page', async () => {
    const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;
    await s.openDefault(FIELDS);
    await s.submit({
      email: 'hostile@example.com',
      full_name: hostile,
      answers: { site: 'https://h.example/?q="><script>', about: hostile },
    });
    const link = s.linkOf(await s.mail('hostile@example.com'));
    const page = await s.t.http().get(link);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&lt;script>alert(1)&lt;/script>');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'nonce-/);
    expect(hiddenField(page.text, '_csrf')).toBeTruthy();
  });

  it("the form's questions are read by anyone of an allowed origin, also where widgets need a sign-in", async () => {
    const patched = await s.t
      .http()
      .patch(`/admin/v1/tenants/${s.tenant.slug}`)
      .set('Authorization', `Bearer ${s.t.adminToken}`)
      .send({ embed_auth: 'token' });
    expect(patched.status).toBe(200);
    const read = (group?: string, origin = s.origin) =>
      s.t
        .http()
        .get(`/embed/v1/applications/form?tenant=${s.tenant.slug}${group ? `&group=${group}` : ''}`)
        .set('Origin', origin);
    const closed = await read();
    expect(closed.status).toBe(404);
    expect(closed.body.code).toBe('group_not_found');
    await s.openDefault(FIELDS);
    const open = await read();
    expect(open.status).toBe(200);
    expect(open.headers['access-control-allow-origin']).toBe(s.origin);
    expect(open.body).toEqual({ group: 'default', name: 'Default', fields: FIELDS });
    expect((await read('Bad Slug')).status).toBe(400);
    expect((await read(undefined, 'https://evil.example')).body.code).toBe('origin_not_allowed');
    const applied = await s.submit({
      email: 'token@example.com',
      full_name: 'T',
      answers: { site: 'https://t.example' },
    });
    expect(applied.status).toBe(201);
  });
});
