/**
 * docs/console.md: the console's bounties page lists the bounties with their partners' progress
 * (reached ones marked, names escaped); a manager creates one with the form (a refused form comes
 * back with what is wrong) and ends one; a viewer reads and may not post. Setup: bounties-suite.
 */
import { upsertUser } from '../../factories/users.factory';
import { OWN_ORIGIN } from '../../utils/applications-suite';
import { type Bounty, bountiesSuite } from '../../utils/bounties-suite';
import { hiddenField, orgSignIn } from '../../utils/pages-http';

jest.setTimeout(60_000);

describe('bounties: the console page', () => {
  const s = bountiesSuite();
  const HOSTILE = `"><script>alert(1)</script>`;

  async function page(token: string, query = '') {
    const cookie = await orgSignIn(s.t.http, token);
    const res = await s.t
      .http()
      .get(`/org/${s.tenant.slug}/bounties${query}`)
      .set('Cookie', cookie);
    return { cookie, res, csrf: hiddenField(res.text, '_csrf') ?? '' };
  }
  const post = (cookie: string, path: string, form: Record<string, string>) =>
    s.t
      .http()
      .post(`/org/${s.tenant.slug}/bounties${path}`)
      .set('Cookie', cookie)
      .set('Origin', OWN_ORIGIN)
      .type('form')
      .send(form);

  it('lists bounties with the partners furthest on, reached ones marked, names escaped', async () => {
    const bounty = await s.bounty({ name: HOSTILE, threshold: 2 });
    const ann = await upsertUser(s.t, s.tenant.key, { full_name: `Ann ${HOSTILE}` });
    const bob = await upsertUser(s.t, s.tenant.key, { full_name: 'Bob' });
    await s.sale(ann);
    await s.sale(ann);
    await s.sale(bob);
    const { res } = await page(s.viewer, '?lang=en');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).toContain('&lt;script>alert(1)&lt;/script>');
    expect(res.text).toContain(`href="/org/${s.tenant.slug}/bounties"`);
    const section = res.text.slice(res.text.indexOf(`data-bounty-id="${bounty.bounty_id}"`));
    expect(section).toContain('Reached by 1');
    expect(section.indexOf('Ann')).toBeLessThan(section.indexOf('Bob'));
    expect(section).toMatch(/2 \/ 2/);
    expect(section).toMatch(/1 \/ 2/);
    expect(section).toContain('class="reached"');
    // A viewer sees no forms, and a post of theirs is refused.
    expect(res.text).not.toContain('data-action="create-bounty"');
    expect(res.text).not.toContain('data-action="end-bounty"');
    const { cookie, csrf } = await page(s.viewer);
    const refused = await post(cookie, '', { _csrf: csrf, name: 'x' });
    expect(refused.status).toBe(403);
  });

  it('a manager creates a bounty with the form, sees what is wrong with a bad one, and ends one', async () => {
    const gold = await s.group({ slug: 'gold', name: 'Gold' });
    const { cookie, res, csrf } = await page(s.manager, '?lang=en');
    expect(res.text).toContain('data-action="create-bounty"');
    expect(res.text).toContain('Gold');
    const form = {
      _csrf: csrf,
      name: 'Winter',
      group_id: gold.group_id,
      metric: 'revenue_kopecks',
      threshold: '1000000',
      amount: '5 000,50'.replace(' ', ''),
      currency: 'RUB',
      starts_at: '2026-12-01T10:00',
      ends_at: '2027-01-01T00:00',
    };
    const created = await post(cookie, '', form);
    expect(created.status).toBe(303);
    expect(created.headers.location).toBe(`/org/${s.tenant.slug}/bounties?notice=created`);
    const [bounty] = (await s.listBounties()).body.items as Bounty[];
    expect(bounty).toMatchObject({
      name: 'Winter',
      group_id: gold.group_id,
      metric: 'revenue_kopecks',
      threshold: 1_000_000,
      amount_kopecks: 500_050,
      starts_at: '2026-12-01T10:00:00.000Z',
      ends_at: '2027-01-01T00:00:00.000Z',
    });

    const bad = await post(cookie, '', { ...form, threshold: '0', amount: 'lots' });
    expect(bad.status).toBe(303);
    const back = await s.t.http().get(bad.headers.location).set('Cookie', cookie);
    expect(back.text).toContain('role="alert"');
    expect(back.text).toContain('The threshold is a whole number, at least 1.');
    expect(back.text).toContain('The bonus is an amount such as 5000 or 5000,50.');
    const early = await post(cookie, '', { ...form, ends_at: '2026-11-01T00:00' });
    const earlyPage = await s.t.http().get(early.headers.location).set('Cookie', cookie);
    expect(earlyPage.text).toContain('ends_at: must be after starts_at');
    expect((await s.listBounties()).body.pagination.total).toBe(1);

    const running = await s.bounty({ name: 'Running' });
    const ended = await post(cookie, `/${running.bounty_id}/end`, { _csrf: csrf });
    expect(ended.status).toBe(303);
    expect(ended.headers.location).toBe(`/org/${s.tenant.slug}/bounties?notice=ended`);
    const after = (await s.listBounties()).body.items as Bounty[];
    expect(after.find((b) => b.bounty_id === running.bounty_id)?.ends_at).not.toBeNull();
  });
});
