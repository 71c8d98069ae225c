/**
 * Creating tenants over the Admin API (POST /admin/v1/tenants): the documented defaults, every optional
 * field, the limits, duplicate slugs and each refused body. Setup: tenants-suite.
 */
import { createTenant, uniqueSlug } from '../../factories/tenants.factory';
import {
  tenantsSuite,
  ISO_MS,
  ORG_ID,
  TENANT_KEY,
  DEFAULT_PROGRAM,
  tiers,
  expectProblem,
  expectFieldError,
} from '../../utils/tenants-suite';

describe('Admin API: creating tenants', () => {
  const s = tenantsSuite();

  describe('POST /admin/v1/tenants', () => {
    it('creates a tenant with documented defaults and a tenant key that works on the Federation API', async () => {
      const slug = uniqueSlug('new');
      const res = await s.createRaw({
        slug,
        display_name: 'Acme Shop',
        allowed_origins: ['https://acme.example', 'http://localhost:3000'],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        org_id: expect.stringMatching(ORG_ID),
        slug,
        display_name: 'Acme Shop',
        allowed_origins: ['https://acme.example', 'http://localhost:3000'],
        currency: 'RUB',
        locale: 'ru-RU',
        // docs/payouts.md and docs/fraud.md defaults (docs/payouts.md, docs/fraud.md).
        payouts: {
          minimum_kopecks: 100000,
          schedule: 'manual',
          hold_days: 0,
          require_details: false,
        },
        attribution_window_days: 90,
        // docs/embedding.md §3: the widgets' reads gated by Origin alone unless asked otherwise.
        embed_auth: 'origin',
        retention: { client_data_days: 90, events_days: 30 },
        branding: { from_name: null, reply_to: null, accent_color: '#2563EB', logo_url: null },
        notifications: { digest_hour_utc: 8, templates: {} },
        fraud: {
          self_referral: { enabled: true },
          duplicate_customer: { enabled: true },
          ip_burst: { enabled: true, leads_per_hour: 10 },
          disposable_email: { enabled: true },
          fast_conversion: { enabled: false, seconds: 30 },
          amount_outlier: { enabled: false, factor: 10 },
        },
        link_domains: [],
        link_templates: {},
        program: DEFAULT_PROGRAM,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
        tenant_key: expect.stringMatching(TENANT_KEY),
      });
      expect(res.body.updated_at).toBe(res.body.created_at);

      const upserted = await s.federationUpsert(res.body.tenant_key, { external_id: 'first' });
      expect(upserted.status).toBe(200);
      expect(upserted.body.action).toBe('created');
    });

    it('gives every tenant its own org_id and key', async () => {
      const a = await createTenant(s.t);
      const b = await createTenant(s.t);
      expect(a.orgId).not.toBe(b.orgId);
      expect(a.key).not.toBe(b.key);
    });

    it('stores every optional field, including a program with fixed tiers', async () => {
      const slug = uniqueSlug('full');
      const body = {
        slug,
        display_name: 'Full',
        allowed_origins: ['https://full.example:8443'],
        currency: 'EUR',
        locale: 'en',
        link_domains: ['shop.full.example', 'full.example'],
        link_templates: {
          offer: 'https://full.example/offers/{id}',
          shop: 'https://full.example/s/{id}?ref=1',
        },
        program: {
          lead_bonus_kopecks: 2500,
          tiers: [
            { tier: 'referrer', fixed_kopecks: 10000 },
            { tier: 'upline_1', percent_bp: 250 },
            { tier: 'upline_2', fixed_kopecks: 5000 },
          ],
          grace_period_hours: 0,
        },
      };
      const res = await s.createRaw(body);
      expect(res.status).toBe(201);
      const { slug: _s, ...rest } = body;
      expect(res.body).toMatchObject({ slug, ...rest });

      const got = await s.getTenant(slug);
      expect(got.status).toBe(200);
      const { tenant_key: _k, ...created } = res.body;
      expect(got.body).toEqual(created);
      expect(got.body.program).toEqual(body.program);
    });

    it('accepts {id} in the path, the query or the fragment of a link template', async () => {
      const link_templates = {
        offer: 'https://a.example/offers/{id}',
        shop: 'https://a.example/catalog?shop={id}&from=partner',
        partner: 'https://a.example/partners#{id}',
        storefront: 'https://a.example/s/{id}?again={id}#{id}',
      };
      const res = await s.createRaw({ ...s.validBody(), link_templates });
      expect(res.status).toBe(201);
      expect(res.body.link_templates).toEqual(link_templates);
    });

    it('fills omitted program fields with the the documented defaults (README.md)', async () => {
      const res = await s.createRaw({ ...s.validBody(), program: { grace_period_hours: 24 } });
      expect(res.status).toBe(201);
      expect(res.body.program).toEqual({ ...DEFAULT_PROGRAM, grace_period_hours: 24 });
    });

    it('accepts the maximum: referrer and 20 uplines with percentages adding up to 10000', async () => {
      const program = {
        tiers: [{ tier: 'referrer', percent_bp: 8000 }, ...tiers(21, 100).slice(1)],
      };
      const res = await s.createRaw({ ...s.validBody(), program });
      expect(res.status).toBe(201);
      expect(res.body.program.tiers).toEqual(program.tiers);
    });

    it('refuses a duplicate slug with 409 conflict and leaves the first tenant as it was', async () => {
      const first = await createTenant(s.t);
      const res = await s.createRaw({ ...s.validBody(first.slug), display_name: 'Impostor' });
      expectProblem(res, 409, 'conflict');
      const got = await s.getTenant(first.slug);
      expect(got.body.display_name).toBe(`Tenant ${first.slug}`);
      expect(got.body.org_id).toBe(first.orgId);
      // The first tenant's key is untouched.
      expect((await s.federationUpsert(first.key, { external_id: 'x' })).status).toBe(200);
    });

    it('refuses two concurrent creations of the same slug: one 201, one 409', async () => {
      const slug = uniqueSlug('race');
      const results = await Promise.all([
        s.createRaw(s.validBody(slug)),
        s.createRaw(s.validBody(slug)),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    });

    const cases: [string, Record<string, unknown>, string][] = [
      ['slug missing', { slug: undefined }, 'slug'],
      ['slug with upper case', { slug: 'Acme' }, 'slug'],
      ['slug starting with a hyphen', { slug: '-acme' }, 'slug'],
      ['slug of one character', { slug: 'a' }, 'slug'],
      ['slug of 64 characters', { slug: 'a'.repeat(64) }, 'slug'],
      ['slug with an underscore', { slug: 'acme_shop' }, 'slug'],
      ['slug with a dot', { slug: 'acme.shop' }, 'slug'],
      ['slug with a space', { slug: 'acme shop' }, 'slug'],
      ['slug with a slash', { slug: 'acme/shop' }, 'slug'],
      ['slug with a non-ASCII letter', { slug: 'acmé' }, 'slug'],
      ['slug not a string', { slug: 12345 }, 'slug'],
      ['display_name missing', { display_name: undefined }, 'display_name'],
      ['display_name empty', { display_name: '' }, 'display_name'],
      ['display_name over 200 characters', { display_name: 'x'.repeat(201) }, 'display_name'],
      ['allowed_origins missing', { allowed_origins: undefined }, 'allowed_origins'],
      ['allowed_origins not an array', { allowed_origins: 'https://a.example' }, 'allowed_origins'],
      ['origin with a path', { allowed_origins: ['https://a.example/app'] }, 'allowed_origins'],
      [
        'origin with a trailing slash',
        { allowed_origins: ['https://a.example/'] },
        'allowed_origins',
      ],
      ['origin with a query', { allowed_origins: ['https://a.example?x=1'] }, 'allowed_origins'],
      ['origin with a fragment', { allowed_origins: ['https://a.example#x'] }, 'allowed_origins'],
      ['origin with a ftp scheme', { allowed_origins: ['ftp://a.example'] }, 'allowed_origins'],
      ['origin javascript:', { allowed_origins: ['javascript:alert(1)'] }, 'allowed_origins'],
      [
        'origin with an upper-case host',
        { allowed_origins: ['https://A.example'] },
        'allowed_origins',
      ],
      [
        'origin with a default port',
        { allowed_origins: ['https://a.example:443'] },
        'allowed_origins',
      ],
      [
        'one bad origin among good ones',
        { allowed_origins: ['https://a.example', 'https://b.example/'] },
        'allowed_origins',
      ],
      ['link domain with a scheme', { link_domains: ['https://shop.example'] }, 'link_domains'],
      ['link domain in upper case', { link_domains: ['Shop.example'] }, 'link_domains'],
      ['link domain with a port', { link_domains: ['shop.example:8443'] }, 'link_domains'],
      [
        'template without {id}',
        { link_templates: { offer: 'https://a.example/offers/1' } },
        'link_templates',
      ],
      [
        'unknown template key',
        { link_templates: { coupon: 'https://a.example/c/{id}' } },
        'link_templates',
      ],
      [
        'template for website (website targets are URLs, not templates)',
        { link_templates: { website: 'https://a.example/{id}' } },
        'link_templates',
      ],
      [
        'template with a javascript: URL',
        { link_templates: { offer: 'javascript:{id}' } },
        'link_templates',
      ],
      [
        'template that is not a URL',
        { link_templates: { offer: '/offers/{id}' } },
        'link_templates',
      ],
      // docs/security.md: {id} only in the path, query or fragment, never where it could change the site.
      [
        'template with {id} ending the host',
        { link_templates: { offer: 'https://a.example{id}' } },
        'link_templates',
      ],
      [
        'template with {id} as a sub-domain',
        { link_templates: { shop: 'https://{id}.a.example/' } },
        'link_templates',
      ],
      [
        'template with {id} as the port',
        { link_templates: { offer: 'https://a.example:{id}/o' } },
        'link_templates',
      ],
      [
        'template with {id} as user info',
        { link_templates: { offer: 'https://{id}@a.example/' } },
        'link_templates',
      ],
      [
        'template with an empty host',
        { link_templates: { offer: 'https:///{id}' } },
        'link_templates',
      ],
      ['template value not a string', { link_templates: { offer: 42 } }, 'link_templates'],
      ['link_templates an array', { link_templates: ['https://a.example/{id}'] }, 'link_templates'],
      [
        'tiers not starting with referrer',
        { program: { tiers: [{ tier: 'upline_1', percent_bp: 100 }] } },
        'program.tiers',
      ],
      [
        'tiers out of order (upline_2 before upline_1)',
        {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 100 },
              { tier: 'upline_2', percent_bp: 100 },
              { tier: 'upline_1', percent_bp: 100 },
            ],
          },
        },
        'program.tiers',
      ],
      [
        'an upline skipped',
        {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 100 },
              { tier: 'upline_2', percent_bp: 100 },
            ],
          },
        },
        'program.tiers',
      ],
      ['empty tier list', { program: { tiers: [] } }, 'program.tiers'],
      [
        'a tier with both percent_bp and fixed_kopecks',
        { program: { tiers: [{ tier: 'referrer', percent_bp: 100, fixed_kopecks: 100 }] } },
        'program.tiers',
      ],
      [
        'a tier with neither percent_bp nor fixed_kopecks',
        { program: { tiers: [{ tier: 'referrer' }] } },
        'program.tiers',
      ],
      [
        'a tier whose only amount is null',
        { program: { tiers: [{ tier: 'referrer', percent_bp: null }] } },
        'program.tiers',
      ],
      [
        'percent_bp over 10000',
        { program: { tiers: [{ tier: 'referrer', percent_bp: 10001 }] } },
        'program.tiers.0.percent_bp',
      ],
      [
        'percent_bp negative',
        { program: { tiers: [{ tier: 'referrer', percent_bp: -1 }] } },
        'program.tiers.0.percent_bp',
      ],
      [
        'percent_bp not an integer',
        { program: { tiers: [{ tier: 'referrer', percent_bp: 10.5 }] } },
        'program.tiers.0.percent_bp',
      ],
      [
        'fixed_kopecks negative',
        {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 100 },
              { tier: 'upline_1', fixed_kopecks: -1 },
            ],
          },
        },
        'program.tiers.1.fixed_kopecks',
      ],
      ['22 tiers', { program: { tiers: tiers(22, 10) } }, 'program.tiers'],
      [
        'percentages adding up to more than 10000',
        {
          program: {
            tiers: [
              { tier: 'referrer', percent_bp: 6000 },
              { tier: 'upline_1', percent_bp: 4001 },
            ],
          },
        },
        'program.tiers',
      ],
      ['a tier that is null', { program: { tiers: [null] } }, 'program.tiers'],
      [
        'an unknown field in a tier',
        { program: { tiers: [{ tier: 'referrer', percent_bp: 100, bonus: 1 }] } },
        'program.tiers.0.bonus',
      ],
      ['tiers not an array', { program: { tiers: 'referrer' } }, 'program.tiers'],
      [
        'grace_period_hours negative',
        { program: { grace_period_hours: -1 } },
        'program.grace_period_hours',
      ],
      [
        'lead_bonus_kopecks negative',
        { program: { lead_bonus_kopecks: -5 } },
        'program.lead_bonus_kopecks',
      ],
      ['an unknown program field', { program: { percent: 5 } }, 'program.percent'],
      ['currency in lower case', { currency: 'rub' }, 'currency'],
      ['currency of four letters', { currency: 'RUBL' }, 'currency'],
      ['unknown locale', { locale: 'xx-XX' }, 'locale'],
      ['an unknown top-level field', { tenant_key: 'tk_mine' }, 'tenant_key'],
    ];

    it.each(cases)('refuses %s with 400 validation_failed', async (_label, override, field) => {
      const body: Record<string, unknown> = { ...s.validBody(), ...override };
      for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
      const res = await s.createRaw(body);
      expectFieldError(res, field);
      expect(res.body).not.toHaveProperty('tenant_key');
      if (typeof body.slug === 'string' && /^[a-z0-9-]+$/.test(body.slug)) {
        expectProblem(await s.getTenant(body.slug), 404, 'tenant_not_found');
      }
    });

    it('refuses a body that is not JSON with 415 and malformed JSON with 400', async () => {
      const text = await s
        .admin()
        .raw('post', '/admin/v1/tenants', undefined, { 'Content-Type': 'text/plain' })
        .send('slug=acme');
      expectProblem(text, 415, 'unsupported_media_type');
      const broken = await s
        .admin()
        .raw('post', '/admin/v1/tenants', undefined, { 'Content-Type': 'application/json' })
        .send('{"slug": ');
      expectProblem(broken, 400, 'invalid_json');
    });
  });
});
