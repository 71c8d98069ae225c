/**
 * docs/partners.md, "The partner portal": Home shows the signed-in partner the bounties they take
 * part in (their group's or everyone's, running) with their progress and whether they reached it,
 * names escaped; not another group's. Setup: bounties-suite with an SMTP catcher for the sign-in.
 */
import { upsertUser } from '../../factories/users.factory';
import { bountiesSuite } from '../../utils/bounties-suite';
import { portalGet, portalSignIn } from '../../utils/portal-suite';
import { type SmtpCatcher, startSmtpCatcher } from '../../utils/smtp-catcher';

jest.setTimeout(60_000);

describe('bounties: the partner portal', () => {
  const env: Record<string, string> = {};
  let smtp: SmtpCatcher;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    env.SMTP_URL = smtp.url;
  });
  afterAll(() => smtp?.close());
  const s = bountiesSuite(env);
  const HOSTILE = `"><script>alert(1)</script>`;

  it('shows the partner’s bounties with progress, reached ones marked', async () => {
    const email = `p-${Date.now()}@example.org`;
    const partner = await upsertUser(s.t, s.tenant.key, { email, full_name: 'Petra' });
    const sprint = await s.bounty({ name: `Sprint ${HOSTILE}`, threshold: 3 });
    const quick = await s.bounty({ name: 'Quick', threshold: 1, amount_kopecks: 25_000 });
    const vip = await s.group({ slug: 'vip', name: 'VIP' });
    const theirs = await s.bounty({ name: 'VIP only', group_id: vip.group_id });
    await s.sale(partner);

    const cookie = await portalSignIn(s.t, smtp, s.tenant.slug, email);
    const home = await portalGet(s.t, cookie, `/p/${s.tenant.slug}?lang=en`);
    expect(home.status).toBe(200);
    expect(home.text).not.toContain('<script>alert(1)');
    expect(home.text).toContain('Sprint &quot;>&lt;script>alert(1)&lt;/script>');
    expect(home.text).not.toContain(theirs.bounty_id);
    const item = (id: string) => {
      const at = home.text.indexOf(`data-bounty-id="${id}"`);
      expect(at).toBeGreaterThan(-1);
      return home.text.slice(at, home.text.indexOf('</li>', at));
    };
    expect(item(sprint.bounty_id)).toContain('data-reached="false"');
    expect(item(sprint.bounty_id)).toContain('1 / 3 sales');
    expect(item(sprint.bounty_id)).toMatch(
      /<progress[^>]*max="3"[^>]*value="1"|<progress[^>]*value="1"[^>]*max="3"/,
    );
    expect(item(quick.bounty_id)).toContain('data-reached="true"');
    expect(item(quick.bounty_id)).toContain('data-field="reached"');
  });
});
