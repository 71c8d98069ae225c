import { applicationsSuite, OWN_ORIGIN } from '../../utils/applications-suite';
import { hiddenField, orgSignIn } from '../../utils/pages-http';

/**
 * docs/console.md: the console's applications page lists the pending applications with their
 * answers (escaped), and managers approve or reject them with form posts (CSRF); a viewer reads.
 */
describe('partner applications: the console page', () => {
  const s = applicationsSuite();
  const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;

  async function page(token: string, query = '') {
    const cookie = await orgSignIn(s.t.http, token);
    const res = await s.t
      .http()
      .get(`/org/${s.tenant.slug}/applications${query}`)
      .set('Cookie', cookie);
    return { cookie, res, csrf: hiddenField(res.text, '_csrf') ?? '' };
  }

  const post = (cookie: string, path: string, form: Record<string, string>) =>
    s.t
      .http()
      .post(`/org/${s.tenant.slug}/applications/${path}`)
      .set('Cookie', cookie)
      .set('Origin', OWN_ORIGIN)
      .type('form')
      .send(form);

  it('lists pending applications with their answers, hostile strings escaped', async () => {
    await s.openDefault([
      { name: 'site', label: 'Your <i>site</i>', type: 'url', required: true },
      { name: 'about', label: 'About', type: 'textarea', required: false },
    ]);
    await s.pending({
      email: 'h@example.com',
      full_name: HOSTILE,
      answers: { site: 'https://h.example/"><script>x</script>', about: HOSTILE },
    });
    await s.submit({
      email: 'u@example.com',
      full_name: 'Unconfirmed Ursula',
      answers: { site: 'https://u.example' },
    });
    const { res } = await page(s.viewer);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).not.toContain('<img src=x');
    expect(res.text).not.toContain('<i>site</i>');
    expect(res.text).toContain('&lt;script>alert(1)&lt;/script>');
    expect(res.text).toContain('Your &lt;i>site&lt;/i>');
    expect(res.text).not.toContain('Unconfirmed Ursula');
    expect(res.text).toContain(`href="/org/${s.tenant.slug}/applications"`);
    // A viewer sees no decision forms.
    expect(res.text).not.toContain('data-action="approve"');
  });

  it('a manager approves and rejects with form posts; a stale form or a viewer changes nothing', async () => {
    await s.openDefault();
    const vip = await s.group({ name: 'VIP' });
    const first = await s.pending({ email: 'a@example.com', full_name: 'Anna', answers: {} });
    const second = await s.pending({ email: 'b@example.com', full_name: 'Boris', answers: {} });
    const { cookie, res, csrf } = await page(s.manager);
    expect(res.text).toContain('data-action="approve"');
    expect(res.text).toContain('Anna');

    const stale = await post(cookie, `${first}/approve`, { _csrf: 'nope' });
    expect(stale.status).toBe(403);
    expect((await s.get(first)).body.status).toBe('pending');

    const approved = await post(cookie, `${first}/approve`, {
      _csrf: csrf,
      group_id: vip.group_id,
    });
    expect(approved.status).toBe(303);
    expect(approved.headers.location).toBe(`/org/${s.tenant.slug}/applications?notice=approved`);
    expect((await s.get(first)).body).toMatchObject({ status: 'approved', group_id: vip.group_id });
    const twice = await post(cookie, `${first}/approve`, { _csrf: csrf });
    expect(twice.status).toBe(303);
    expect(twice.headers.location).toContain('error=');

    const noReason = await post(cookie, `${second}/reject`, { _csrf: csrf, reason: '  ' });
    expect(noReason.headers.location).toContain('error=');
    const rejected = await post(cookie, `${second}/reject`, { _csrf: csrf, reason: 'Not now' });
    expect(rejected.headers.location).toBe(`/org/${s.tenant.slug}/applications?notice=rejected`);
    expect((await s.get(second)).body).toMatchObject({ status: 'rejected', reason: 'Not now' });

    const after = await s.t
      .http()
      .get(`/org/${s.tenant.slug}/applications?notice=rejected`)
      .set('Cookie', cookie);
    expect(after.text).not.toContain('Boris');
    expect(after.text).toContain('Заявка отклонена.');

    const third = await s.pending({ email: 'c@example.com', full_name: 'Cyril', answers: {} });
    const viewer = await page(s.viewer);
    const refused = await post(viewer.cookie, `${third}/approve`, { _csrf: viewer.csrf });
    expect(refused.status).toBe(403);
    expect((await s.get(third)).body.status).toBe('pending');
  });

  it('filters by group and speaks Russian', async () => {
    await s.openDefault();
    const other = await s.group({ name: 'Другая' });
    await s.pending({ email: 'd@example.com', full_name: 'Default Dora', answers: {} });
    await s.pending({
      group: other.slug,
      email: 'o@example.com',
      full_name: 'Other Oleg',
      answers: {},
    });
    const { res } = await page(s.viewer, `?group_id=${other.group_id}&lang=ru`);
    expect(res.text).toContain('Other Oleg');
    expect(res.text).not.toContain('Default Dora');
    expect(res.text).toContain('Заявки');
    expect(res.text).toContain('Ждут решения: 1');
  });
});
