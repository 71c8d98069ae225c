import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { EmbedTokenService } from '../../../src/access/embed-token.service';
import { ClickCounter } from '../../../src/deeplinks/click-counter';
import { eventsOf } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser, UpsertedMember } from '../../factories/users.factory';
import { withoutClickTime } from '../../utils/click-refs';
import { createTestApp, TestApp } from '../../utils/create-test-app';

/**
 * Short links (docs/embedding.md, GET /s/:code): a click is recorded, then a 302 to the website target or the
 * tenant's link template with `ref` added, or the service's landing page with the recommendation,
 * the promo code and a lead form that works without JavaScript (POST /s/:code/lead).
 */

interface Link {
  short_url: string;
  signed_ref: string;
  deeplink_id: string;
  code: string;
  reused: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A redirect's Location, its click-stamped ref checked and replaced by the link's own. */
const located = (res: Response) => withoutClickTime(String(res.headers['location']));

function expectHtml(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.headers['cache-control']).toBe('no-store');
}

/** The landing page's lead form, as a browser with JavaScript disabled would find it. */
function leadFormOf(html: string) {
  const form = /<form\b([^>]*\bdata-form="lead"[^>]*)>([\s\S]*?)<\/form>/.exec(html);
  if (!form) return undefined;
  const attrs = form[1];
  const inputs = [...form[2].matchAll(/<input\b[^>]*\bname="([^"]+)"/g)].map((m) => m[1]);
  return {
    method: /\bmethod="([^"]+)"/.exec(attrs)?.[1],
    action: /\baction="([^"]+)"/.exec(attrs)?.[1],
    inputs,
  };
}

describe('short links', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let origin: string;
  let owner: UpsertedMember;
  let token: string;

  const createLink = async (
    body: Record<string, unknown>,
    as: { member?: UpsertedMember } = {},
  ): Promise<Link> => {
    const bearer = as.member
      ? t.app.get(EmbedTokenService).issue(tenant.orgId, as.member.memberId).token
      : token;
    const res = await t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
      .set('Origin', origin)
      .set('Authorization', `Bearer ${bearer}`)
      .send(body);
    if (res.status !== 200)
      throw new Error(`createLink: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Link;
  };
  /** Clicks are written in batches (ClickCounter): write what is counted, as the timer would. */
  const written = () => t.app.get(ClickCounter).flush();
  const clicksOf = async (deeplinkId: string): Promise<number> => {
    await written();
    const [row] = await t.db.query(
      'SELECT clicks_count FROM deeplinks WHERE tenant_id = $1 AND id = $2',
      [tenant.orgId, deeplinkId],
    );
    return row.clicks_count;
  };
  const cabinetClicks = async (member: UpsertedMember): Promise<number> => {
    await written();
    const res = await t
      .http()
      .get(`/embed/v1/data/cabinet/${member.memberId}?tenant=${tenant.slug}`)
      .set('Origin', origin);
    expect(res.status).toBe(200);
    return res.body.kpi.clicks_count;
  };
  const postLead = (code: string, form: string) =>
    t
      .http()
      .post(`/s/${code}/lead`)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(form);

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { display_name: 'Acme & Sons' });
    origin = `https://${tenant.slug}.example`;
    owner = await upsertUser(t, tenant.key, { full_name: 'Link Owner', email: 'owner@x.example' });
    token = t.app.get(EmbedTokenService).issue(tenant.orgId, owner.memberId).token;
  });
  afterAll(() => t.close());

  describe('website links', () => {
    it('redirect 302 to the target with ref=<signed_ref> added, no-store', async () => {
      const link = await createLink({ target_type: 'website', target_id: `${origin}/catalog` });
      expect(link.short_url).toBe(`http://localhost:3000/s/${link.code}`);
      const res = await t.http().get(`/s/${link.code}`);
      expect(res.status).toBe(302);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(located(res)).toBe(`${origin}/catalog?ref=${link.signed_ref}`);
      expect(new URL(located(res)).searchParams.get('ref')).toBe(link.signed_ref);
    });

    it('keep the existing query as it was, adding ref to it (and keep the fragment after it)', async () => {
      const target = `${origin}/path?q&utm_campaign=spring%20sale&next=/account/orders#top`;
      const link = await createLink({ target_type: 'website', target_id: target });
      const res = await t.http().get(`/s/${link.code}`);
      expect(res.status).toBe(302);
      const location = new URL(located(res));
      expect(location.origin + location.pathname).toBe(`${origin}/path`);
      expect(location.hash).toBe('#top');
      expect(location.searchParams.getAll('ref')).toEqual([link.signed_ref]);
      expect(location.searchParams.get('utm_campaign')).toBe('spring sale');
      // Byte for byte: the tenant's own query is not re-encoded (`q` stays `q`, `%20` stays
      // `%20` for decodeURIComponent readers, `/` stays `/`).
      expect(located(res)).toBe(
        `${origin}/path?q&utm_campaign=spring%20sale&next=/account/orders&ref=${link.signed_ref}#top`,
      );
    });

    it('replace a ref already in the target rather than adding a second one', async () => {
      const link = await createLink({
        target_type: 'website',
        target_id: `${origin}/p?ref=forged.value&x=1`,
      });
      const res = await t.http().get(`/s/${link.code}`);
      expect(res.status).toBe(302);
      const location = new URL(located(res));
      expect(location.searchParams.getAll('ref')).toEqual([link.signed_ref]);
      expect(location.searchParams.get('x')).toBe('1');
    });
  });

  describe('other target types', () => {
    it('redirect to the tenant link template with {id} filled and ref added', async () => {
      const patched = await t
        .http()
        .patch(`/admin/v1/tenants/${tenant.slug}`)
        .set('Authorization', `Bearer ${t.adminToken}`)
        .send({
          link_templates: {
            offer: `${origin}/offers/{id}?from=partner`,
            partner: `https://partners.example/p/{id}`,
          },
        });
      expect(patched.status).toBe(200);

      const offer = await createLink({ target_type: 'offer', target_id: 'spring-42' });
      const res = await t.http().get(`/s/${offer.code}`);
      expect(res.status).toBe(302);
      expect(res.headers['cache-control']).toBe('no-store');
      const location = new URL(located(res));
      expect(location.origin + location.pathname).toBe(`${origin}/offers/spring-42`);
      expect(location.searchParams.get('from')).toBe('partner');
      expect(location.searchParams.getAll('ref')).toEqual([offer.signed_ref]);

      const partner = await createLink({ target_type: 'partner', target_id: 'p_7.x' });
      const toPartner = await t.http().get(`/s/${partner.code}`);
      expect(toPartner.status).toBe(302);
      expect(located(toPartner)).toBe(`https://partners.example/p/p_7.x?ref=${partner.signed_ref}`);
    });

    it('fill {id} in the query or the fragment, encoded for it (docs/security.md)', async () => {
      const patched = await t
        .http()
        .patch(`/admin/v1/tenants/${tenant.slug}`)
        .set('Authorization', `Bearer ${t.adminToken}`)
        .send({
          link_templates: {
            offer: `${origin}/catalog?offer={id}&from=partner`,
            partner: `${origin}/partners#{id}`,
          },
        });
      expect(patched.status).toBe(200);
      const offer = await createLink({ target_type: 'offer', target_id: 'spring:42' });
      const toOffer = await t.http().get(`/s/${offer.code}`);
      expect(toOffer.status).toBe(302);
      expect(located(toOffer)).toBe(
        `${origin}/catalog?offer=spring%3A42&from=partner&ref=${offer.signed_ref}`,
      );
      const partner = await createLink({ target_type: 'partner', target_id: 'p:7' });
      const toPartner = await t.http().get(`/s/${partner.code}`);
      expect(toPartner.status).toBe(302);
      expect(located(toPartner)).toBe(`${origin}/partners?ref=${partner.signed_ref}#p%3A7`);
    });

    it('never let a template saved with {id} in its host steer a link to another site (docs/security.md)', async () => {
      // Written past the validation, as a template saved before the rule would be.
      await t.db.query(
        `UPDATE tenants SET link_templates = link_templates || $2::jsonb WHERE id = $1`,
        [tenant.orgId, JSON.stringify({ storefront: `https://${tenant.slug}.example{id}` })],
      );
      try {
        const link = await createLink({ target_type: 'storefront', target_id: '.evil.example' });
        const res = await t.http().get(`/s/${link.code}`);
        expect(res.headers['location']).toBeUndefined();
        expectHtml(res, 200); // the landing page, with its lead form
        expect(leadFormOf(res.text)?.action).toBe(`/s/${link.code}/lead`);
      } finally {
        await t.db.query(
          `UPDATE tenants SET link_templates = link_templates - 'storefront' WHERE id = $1`,
          [tenant.orgId],
        );
      }
    });

    it('without a template: a landing page with the recommendation and promo code escaped and a lead form', async () => {
      const link = await createLink({
        target_type: 'shop',
        target_id: 'shop-9',
        recommendation_text: 'Best <script>alert(1)</script> shop "ever" & more',
        promo_code: 'SPRING_10-X',
      });
      const res = await t.http().get(`/s/${link.code}`);
      expectHtml(res, 200);
      // Text is escaped by the view layer (preact-render-to-string): `<`, `&` and `"` are
      // entities; `>` needs none in text, where it cannot open a tag.
      expect(res.text).toContain(
        'Best &lt;script>alert(1)&lt;/script> shop &quot;ever&quot; &amp; more',
      );
      expect(res.text).not.toContain('<script>alert(1)');
      expect(res.text).toContain('SPRING_10-X');
      expect(res.text).toContain('Acme &amp; Sons');
      expect(leadFormOf(res.text)).toEqual({
        method: 'post',
        action: `/s/${link.code}/lead`,
        inputs: expect.arrayContaining(['name', 'email', 'phone']),
      });
      // Served as the service's page: unframeable, nonce-only scripts.
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['content-security-policy']).toMatch(/script-src 'nonce-[^']+'(;|$)/);
    });

    it('a link without recommendation or promo code still lands with the lead form', async () => {
      const link = await createLink({ target_type: 'storefront', target_id: 'main' });
      const res = await t.http().get(`/s/${link.code}`);
      expectHtml(res, 200);
      expect(leadFormOf(res.text)?.inputs).toEqual(
        expect.arrayContaining(['name', 'email', 'phone']),
      );
    });
  });

  describe('the landing page lead form (no JavaScript)', () => {
    let link: Link;

    beforeAll(async () => {
      link = await createLink({ target_type: 'shop', target_id: 'form-shop', promo_code: 'FORM' });
    });

    it('creates a referral_link lead for the link owner and shows a thank-you page', async () => {
      const email = `visitor-${randomBytes(4).toString('hex')}@example.org`;
      const res = await postLead(
        link.code,
        new URLSearchParams({ name: 'Olga Visitor', email, phone: '+7 900 123-45-67' }).toString(),
      );
      expectHtml(res, 200);
      expect(res.text).toMatch(/Thank you/i);
      expect(leadFormOf(res.text)).toBeUndefined();

      const rows = await t.db.query(
        `SELECT id, source, referrer_user_id, referrer_member_id, contact_name, contact_phone, status
           FROM leads WHERE tenant_id = $1 AND contact_email = $2`,
        [tenant.orgId, email],
      );
      expect(rows).toEqual([
        {
          id: expect.stringMatching(/^lead_/),
          source: 'referral_link',
          referrer_user_id: owner.serviceUserId,
          referrer_member_id: owner.memberId,
          contact_name: 'Olga Visitor',
          contact_phone: '+7 900 123-45-67',
          status: 'new',
        },
      ]);
      const event = (await eventsOf(t, tenant.orgId, 'lead.created')).find(
        (e) => e.payload.lead_id === rows[0].id,
      );
      expect(event?.payload).toMatchObject({
        referrer_user_id: owner.serviceUserId,
        contact: { name: 'Olga Visitor', email },
        source: 'referral_link',
      });
    });

    it('takes a phone without an email', async () => {
      const phone = `+7 900 ${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
      const res = await postLead(
        link.code,
        new URLSearchParams({ name: 'Phone Only', phone }).toString(),
      );
      expectHtml(res, 200);
      const rows = await t.db.query(
        'SELECT source FROM leads WHERE tenant_id = $1 AND contact_phone = $2',
        [tenant.orgId, phone],
      );
      expect(rows).toEqual([{ source: 'referral_link' }]);
    });

    it.each([
      ['no name', 'email=a%40example.org'],
      ['no email and no phone', 'name=Nobody'],
      ['a malformed email', 'name=Bad&email=not-an-email'],
      ['a malformed phone', 'name=Bad&phone=call-me'],
      ['only blanks', 'name=%20%20&email=&phone='],
    ])(
      'answers an invalid form (%s) with a 400 page that shows the form again',
      async (_label, form) => {
        const before = await t.db.query(
          'SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1',
          [tenant.orgId],
        );
        const res = await postLead(link.code, form);
        expectHtml(res, 400);
        expect(leadFormOf(res.text)?.action).toBe(`/s/${link.code}/lead`);
        const after = await t.db.query(
          'SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1',
          [tenant.orgId],
        );
        expect(after[0].n).toBe(before[0].n);
      },
    );

    it('escapes what the visitor typed when it is shown back', async () => {
      const res = await postLead(
        link.code,
        new URLSearchParams({ name: '<img src=x onerror=alert(1)>', email: 'nope' }).toString(),
      );
      expectHtml(res, 400);
      expect(res.text).not.toContain('<img src=x');
    });

    it('answers an unknown code with a 404 page', async () => {
      const res = await postLead('Zz9Zz9Zz', 'name=X&email=x%40example.org');
      expectHtml(res, 404);
    });
  });

  describe('unknown codes', () => {
    it.each(['Zz9Zz9Zz', 'short', 'toolongcode1', 'bad!code', '%3Cscript%3E'])(
      'GET /s/%s answers a 404 HTML page',
      async (code) => {
        const res = await t.http().get(`/s/${code}`);
        expectHtml(res, 404);
        expect(res.headers['location']).toBeUndefined();
      },
    );
  });

  describe('clicks', () => {
    it('count every GET on the link and on its owner (cabinet kpi.clicks_count)', async () => {
      const member = await upsertUser(t, tenant.key, { full_name: 'Clicker' });
      expect(await cabinetClicks(member)).toBe(0);
      const site = await createLink(
        { target_type: 'website', target_id: `${origin}/clicks` },
        { member },
      );
      const landing = await createLink(
        { target_type: 'shop', target_id: 'clicks-shop', recommendation_text: 'Come' },
        { member },
      );
      for (let i = 0; i < 3; i++) expect((await t.http().get(`/s/${site.code}`)).status).toBe(302);
      for (let i = 0; i < 2; i++)
        expect((await t.http().get(`/s/${landing.code}`)).status).toBe(200);

      expect(await clicksOf(site.deeplink_id)).toBe(3);
      expect(await clicksOf(landing.deeplink_id)).toBe(2);
      expect(await cabinetClicks(member)).toBe(5);

      // Creating the link again (reused) and posting its form are not clicks.
      await createLink({ target_type: 'website', target_id: `${origin}/clicks` }, { member });
      await postLead(landing.code, 'name=Form&email=form%40example.org');
      expect(await clicksOf(site.deeplink_id)).toBe(3);
      expect(await cabinetClicks(member)).toBe(5);

      // Concurrent clicks are all counted.
      const burst = await Promise.all(
        Array.from({ length: 10 }, () => t.http().get(`/s/${site.code}`)),
      );
      expect(burst.map((r) => r.status)).toEqual(Array(10).fill(302));
      expect(await clicksOf(site.deeplink_id)).toBe(13);
      expect(await cabinetClicks(member)).toBe(15);
    });

    it('a link followed again is answered from memory: same 302, still counted, metrics too', async () => {
      const member = await upsertUser(t, tenant.key, { full_name: 'Cached' });
      const link = await createLink(
        { target_type: 'website', target_id: `${origin}/cached` },
        { member },
      );
      const first = await t.http().get(`/s/${link.code}`);
      const again = await t.http().get(`/s/${link.code}`).set('X-Request-Id', 'campaign-42');
      for (const res of [first, again]) {
        expect(res.status).toBe(302);
        expect(located(res)).toBe(`${origin}/cached?ref=${link.signed_ref}`);
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers['referrer-policy']).toBe('no-referrer');
        expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]+$/);
      }
      expect(again.headers['x-request-id']).toBe('campaign-42');
      // A query string or another method goes through the full pipeline.
      expect((await t.http().get(`/s/${link.code}?utm_source=x`)).status).toBe(302);
      expect((await t.http().head(`/s/${link.code}`)).status).toBe(302);
      expect(await clicksOf(link.deeplink_id)).toBe(4);
      expect(await cabinetClicks(member)).toBe(4);

      const metrics = await t.http().get('/metrics');
      const line = metrics.text
        .split('\n')
        .find((l) =>
          l.startsWith('http_requests_total{method="GET",route="/s/:code",status_code="302"}'),
        );
      expect(Number(line?.split(' ')[1])).toBeGreaterThanOrEqual(2);
    });

    it('a change of the tenant link_templates reaches links already in memory at once', async () => {
      const patch = (template: string) =>
        t
          .http()
          .patch(`/admin/v1/tenants/${tenant.slug}`)
          .set('Authorization', `Bearer ${t.adminToken}`)
          .send({ link_templates: { storefront: template } })
          .expect(200);
      await patch(`${origin}/store-v1/{id}`);
      const link = await createLink({ target_type: 'storefront', target_id: 'moved' });
      const before = await t.http().get(`/s/${link.code}`);
      expect(located(before)).toBe(`${origin}/store-v1/moved?ref=${link.signed_ref}`);
      await patch(`${origin}/store-v2/{id}`);
      const after = await t.http().get(`/s/${link.code}`);
      expect(located(after)).toBe(`${origin}/store-v2/moved?ref=${link.signed_ref}`);
      await t
        .http()
        .patch(`/admin/v1/tenants/${tenant.slug}`)
        .set('Authorization', `Bearer ${t.adminToken}`)
        .send({ link_templates: {} })
        .expect(200);
      expectHtml(await t.http().get(`/s/${link.code}`), 200); // no template: the landing page
    });

    it('are written by the timer on their own, and by a graceful shutdown', async () => {
      const other = await createTestApp({ CLICK_FLUSH_MS: '50' });
      try {
        const member = await upsertUser(other, tenant.key, { full_name: 'Timer' });
        const bearer = other.app.get(EmbedTokenService).issue(tenant.orgId, member.memberId).token;
        const created = await other
          .http()
          .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
          .set('Origin', origin)
          .set('Authorization', `Bearer ${bearer}`)
          .send({ target_type: 'website', target_id: `${origin}/timer` })
          .expect(200);
        const id = created.body.deeplink_id as string;
        const stored = async () =>
          (
            await other.db.query(
              'SELECT clicks_count FROM deeplinks WHERE tenant_id = $1 AND id = $2',
              [tenant.orgId, id],
            )
          )[0].clicks_count as number;
        for (let i = 0; i < 3; i++) await other.http().get(`/s/${created.body.code}`).expect(302);
        const deadline = Date.now() + 5000;
        while ((await stored()) < 3 && Date.now() < deadline) await sleep(25);
        expect(await stored()).toBe(3);
      } finally {
        await other.close();
      }

      // A long interval: only the shutdown writes the clicks.
      const slow = await createTestApp({ CLICK_FLUSH_MS: '60000' });
      const link = await createLink({ target_type: 'website', target_id: `${origin}/shutdown` });
      await slow.http().get(`/s/${link.code}`).expect(302);
      await slow.http().get(`/s/${link.code}`).expect(302);
      const [{ clicks_count: beforeClose }] = await t.db.query(
        'SELECT clicks_count FROM deeplinks WHERE tenant_id = $1 AND id = $2',
        [tenant.orgId, link.deeplink_id],
      );
      expect(beforeClose).toBe(0);
      await slow.close();
      expect(await clicksOf(link.deeplink_id)).toBe(2);
    });

    it('an unknown code counts nothing', async () => {
      const [{ sum: before }] = await t.db.query(
        'SELECT coalesce(sum(clicks_count), 0)::int AS sum FROM deeplinks WHERE tenant_id = $1',
        [tenant.orgId],
      );
      await t.http().get('/s/Qq1Qq1Qq');
      const [{ sum: after }] = await t.db.query(
        'SELECT coalesce(sum(clicks_count), 0)::int AS sum FROM deeplinks WHERE tenant_id = $1',
        [tenant.orgId],
      );
      expect(after).toBe(before);
    });
  });
});
