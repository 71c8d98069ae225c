import { applicationsSuite, OWN_ORIGIN } from '../../utils/applications-suite';
import { cookiePairs, hiddenField } from '../../utils/pages-http';

/**
 * docs/partners.md, "Applications": the hosted form `/p/<slug>/join[/<group-slug>]` over plain
 * HTTP, as a browser without script posts it: the group's own questions, errors beside their
 * fields with the values kept (escaped), the same "check your mail" page for anyone, a stale
 * form shown again, a closed group or unknown program a 404 page.
 */
describe('partner applications: the hosted join form', () => {
  const s = applicationsSuite();
  const HOSTILE = `"><script>alert(1)</script>`;

  async function open(path: string) {
    const page = await s.t.http().get(path);
    return { page, cookie: cookiePairs(page).join('; '), csrf: hiddenField(page.text, '_csrf') };
  }

  const post = (path: string, cookie: string, form: Record<string, string>) =>
    s.t.http().post(path).set('Cookie', cookie).set('Origin', OWN_ORIGIN).type('form').send(form);

  it("shows the group's questions and takes a good form: the same page for a member", async () => {
    const group = await s.group(
      { name: 'Video <makers>' },
      {
        fields: [
          { name: 'site', label: 'Your site', type: 'url', required: true },
          {
            name: 'channel',
            label: 'Channel',
            type: 'select',
            required: true,
            options: ['A', 'B'],
          },
        ],
      },
    );
    const path = `/p/${s.tenant.slug}/join/${group.slug}?lang=en`;
    const { page, cookie, csrf } = await open(path);
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('Video &lt;makers>');
    expect(page.text).toContain('name="answers.site"');
    expect(page.text).toContain('<option value="B">B</option>');
    expect(page.text).not.toMatch(/<script(?! nonce)/);

    const action = `/p/${s.tenant.slug}/join/${group.slug}`;
    const good = {
      full_name: 'Gina',
      email: 'gina@example.com',
      'answers.site': 'https://g.example',
      'answers.channel': 'A',
    };
    const sent = await post(action, cookie, { ...good, _csrf: csrf! });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('role="status"');
    const mail = await s.mail('gina@example.com');
    expect(mail.text).toContain('/join/confirm?token=');
    const [row] = await s.t.db.query(
      `SELECT group_id, answers FROM applications WHERE tenant_id = $1`,
      [s.tenant.orgId],
    );
    expect(row).toEqual({
      group_id: group.group_id,
      answers: { site: 'https://g.example', channel: 'A' },
    });

    await s.fed().upsertUser({ external_id: 'm-1', email: 'member@example.com' });
    const member = await post(action, cookie, {
      ...good,
      email: 'member@example.com',
      _csrf: csrf!,
    });
    expect(member.status).toBe(200);
    const strip = (html: string) =>
      html.replace(/value="[^"]*"/g, '').replace(/nonce="[^"]*"/g, '');
    expect(strip(member.text)).toBe(strip(sent.text));
    expect((await s.mail('member@example.com')).text).toContain(`/p/${s.tenant.slug}`);
  });

  it('a refused form comes back with each error beside its field and the values kept, escaped', async () => {
    await s.openDefault([{ name: 'site', label: 'Your site', type: 'url', required: true }]);
    const path = `/p/${s.tenant.slug}/join`;
    const { cookie, csrf } = await open(`${path}?lang=en`);
    const refused = await post(path, cookie, {
      full_name: HOSTILE,
      email: 'not an email',
      'answers.site': 'javascript:alert(1)',
      _csrf: csrf!,
    });
    expect(refused.status).toBe(400);
    expect(refused.text).not.toContain('<script>alert(1)');
    expect(refused.text).toContain(`value="&quot;>&lt;script>alert(1)&lt;/script>"`);
    expect(refused.text).toContain('id="email-error"');
    const again = await post(path, cookie, {
      full_name: 'Ok',
      email: 'ok@example.com',
      'answers.site': 'javascript:alert(1)',
      _csrf: csrf!,
    });
    expect(again.status).toBe(400);
    expect(again.text).toContain('id="q-site-error"');
    expect(again.text).toContain('aria-invalid="true"');
    const [{ count }] = await s.t.db.query(
      `SELECT count(*)::int AS count FROM applications WHERE tenant_id = $1`,
      [s.tenant.orgId],
    );
    expect(count).toBe(0);
  });

  it('a stale or foreign form changes nothing; a closed group and an unknown program are 404 pages', async () => {
    await s.openDefault();
    const path = `/p/${s.tenant.slug}/join`;
    const form = { full_name: 'S', email: 'stale@example.com' };
    const stale = await post(path, '', { ...form, _csrf: 'forged' });
    expect(stale.status).toBe(403);
    // The form again, its values kept and a fresh token in it.
    expect(stale.text).toContain('value="stale@example.com"');
    expect(hiddenField(stale.text, '_csrf')).toBeTruthy();
    const foreign = await s.t
      .http()
      .post(path)
      .set('Origin', 'https://evil.example')
      .type('form')
      .send(form);
    expect(foreign.status).toBe(403);
    const json = await s.t.http().post(path).set('Origin', OWN_ORIGIN).send(form);
    expect(json.status).toBe(415);
    const [{ count }] = await s.t.db.query(
      `SELECT count(*)::int AS count FROM applications WHERE tenant_id = $1`,
      [s.tenant.orgId],
    );
    expect(count).toBe(0);

    const closed = await s.group({}, { enabled: false });
    const shut = await s.t.http().get(`/p/${s.tenant.slug}/join/${closed.slug}`);
    expect(shut.status).toBe(404);
    expect(shut.headers['content-type']).toMatch(/^text\/html/);
    expect((await s.t.http().get(`/p/${s.tenant.slug}/join/no-such-group`)).status).toBe(404);
    expect((await s.t.http().get(`/p/no-such-program-x/join`)).status).toBe(404);
    expect((await s.t.http().get(`/p/${s.tenant.slug}/join/confirm?token=nope`)).status).toBe(404);
  });
});
