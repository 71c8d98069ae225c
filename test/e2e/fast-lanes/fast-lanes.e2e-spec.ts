import { Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'supertest';
import fc from 'fast-check';
import type Redis from 'ioredis';
import { AccessService } from '../../../src/access/access.service';
import { FastLanes } from '../../../src/fast-lanes/fast-lanes';
import { REDIS } from '../../../src/redis/redis.token';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { createChain, UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { withoutClickTime } from '../../utils/click-refs';

/**
 * The `@FastLane()` routes (src/fast-lanes/) are answered ahead of Express from the routes' own
 * definitions. For the same request, the lane and the pipeline must answer the same status,
 * headers and body; whatever the lane does not take (a refusal, an error) is handed to the
 * pipeline, which answers it as it would anyway.
 */
describe('fast lanes: the lane and the pipeline answer alike', () => {
  let t: TestApp;
  let lanes: FastLanes;
  let tenant: TestTenant;
  let origin: string;
  let chain: UpsertedMember[];
  /** What the lanes did with each request: answered (true) or handed on (false). */
  let served: boolean[];
  /** Lane routes the cases below went through, to check that every one is covered. */
  const covered = new Set<string>();

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMITS: 'on' });
    lanes = t.app.get(FastLanes);
    tenant = await createTenant(t);
    origin = `https://${tenant.slug}.example`;
    chain = await createChain(t, tenant.key, 3);
    const leadId = await createLead(t, tenant.key, chain[1].serviceUserId);
    await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: 50_000,
      external_order_id: 'lane-1',
    });
    const handle = lanes.handle.bind(lanes);
    jest.spyOn(lanes, 'handle').mockImplementation((req, res) => {
      const answered = handle(req, res);
      if (typeof answered === 'boolean') served.push(answered);
      else void answered.then((done) => served.push(done));
      return answered;
    });
  });
  beforeEach(() => (served = []));
  afterAll(() => t.close());

  /** The request through the pipeline only: the lanes step aside for it. */
  const viaPipeline = <T>(send: () => Promise<T>): Promise<T> => {
    jest
      .mocked(lanes.handle)
      .mockImplementationOnce((_req: IncomingMessage, _res: ServerResponse) => false);
    return send();
  };
  /** Status, headers and body, without what differs between any two answers. */
  const comparable = (res: Response) => {
    const headers = { ...res.headers } as Record<string, string>;
    for (const name of ['date', 'x-request-id', 'connection', 'keep-alive']) delete headers[name];
    // Seconds left in a rate limit's window: the two answers may be a second apart.
    if (headers['retry-after']) headers['retry-after'] = 'a second or more';
    // A redirect's ref carries the click time, which differs on every click.
    if (headers['location']) headers['location'] = withoutClickTime(headers['location']);
    // A page's CSP nonce is new in every answer.
    const nonce = /'nonce-([^']+)'/.exec(headers['content-security-policy'] ?? '')?.[1];
    const scrub = (text: string) => (nonce ? text.split(nonce).join('<nonce>') : text);
    if (headers['content-security-policy']) {
      headers['content-security-policy'] = scrub(headers['content-security-policy']);
    }
    // "1 секунду назад" beside "0 секунд назад": the two answers may straddle a second, which
    // changes the relative times and so the length; each length must still be its own body's.
    const text = res.text ?? '';
    if (headers['content-length']) {
      expect(Number(headers['content-length'])).toBe(Buffer.byteLength(text));
      delete headers['content-length'];
    }
    const body = scrub(text).replace(/"relative_time":"[^"]*"/g, '"relative_time":"…"');
    return { status: res.status, headers, body };
  };
  const embed =
    (path: string, from = origin) =>
    () =>
      t.http().get(path).set('Origin', from).set('X-Request-Id', 'lane-test-1');

  /** Sends the request twice, through the lane and through the pipeline, and compares. */
  async function same(send: () => Promise<Response>, lane: 'answers' | 'hands on') {
    served = [];
    const first = await send();
    await new Promise((resolve) => setImmediate(resolve));
    expect(served).toEqual([lane === 'answers']);
    const second = await viaPipeline(send);
    expect(comparable(first)).toEqual(comparable(second));
    if (lane === 'answers') expect(first.headers['x-request-id']).toBe('lane-test-1');
    return first;
  }

  it.each([
    ['cabinet', ''],
    ['bonuses', '&page=1&page_size=5'],
    ['bonuses', '&page=01&page_size=5'],
    ['leads', '&status=all&locale=en'],
    ['leads', '&status=converted&locale=ru-RU'],
    ['referral-tree', '&max_depth=2'],
    ['referral-tree', '&max_depth=02'],
    ['partners', '&page_size=20'],
    ['payouts', '&page=1&page_size=5&locale=en'],
  ])('%s%s: the lane answers what the pipeline answers', async (read, query) => {
    const member = read === 'cabinet' || read === 'leads' ? chain[1] : chain[0];
    const path = `/embed/v1/data/${read}/${member.memberId}?tenant=${tenant.slug}${query}`;
    const res = await same(embed(path), 'answers');
    expect(res.status).toBe(200);
    covered.add(`GET /embed/v1/data/${read}/:user_id`);
  });

  it('hands every refusal to the pipeline, which answers it as it would anyway', async () => {
    const member = chain[0].memberId;
    const read = (query: string, id = member) =>
      `/embed/v1/data/leads/${id}?tenant=${tenant.slug}${query}`;
    const cases: [string, string, number, string][] = [
      [read(''), 'https://evil.example', 403, 'origin_not_allowed'],
      [read('', 'mbr_unknown'), origin, 404, 'user_not_found'],
      [`/embed/v1/data/cabinet/${member}?tenant=no-such-tenant`, origin, 404, 'tenant_not_found'],
      [`/embed/v1/data/cabinet/${member}`, origin, 400, 'validation_failed'],
      [read('&status=lost'), origin, 400, 'validation_failed'],
      [read('&page=0'), origin, 400, 'validation_failed'],
      [read('&extra=1'), origin, 400, 'validation_failed'],
      [read('&tenant=again'), origin, 400, 'validation_failed'],
      [
        `/embed/v1/data/referral-tree/${member}?tenant=${tenant.slug}&max_depth=21`,
        origin,
        400,
        'validation_failed',
      ],
    ];
    for (const [path, from, status, code] of cases) {
      const res = await same(embed(path, from), 'hands on');
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status, code });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['vary']).toMatch(/Origin/);
    }
  });

  it('answers generated queries, valid or not, as the pipeline does', async () => {
    // Names the DTOs know and some they do not, values each DTO takes or refuses, repeated
    // names, empty values and arbitrary text (which the hostile-input rules may refuse first).
    const name = fc.constantFrom(
      'page',
      'page_size',
      'status',
      'locale',
      'max_depth',
      'tenant',
      'extra',
      'Page',
      'status[]',
      '__proto__',
      'constructor',
    );
    const value = fc.oneof(
      fc.constantFrom(
        ...['1', '0', '01', '-1', '2', '20', '21', '100', '101', '1e1', '0x10', ' 1', '1.5'],
        ...['', 'all', 'converted', 'new', 'lost', 'en', 'ru-RU', 'xx', 'true', 'null'],
        tenant.slug,
      ),
      fc.string({ maxLength: 6 }),
    );
    const read = fc.constantFrom(
      'cabinet',
      'bonuses',
      'leads',
      'referral-tree',
      'partners',
      'payouts',
    );
    const query = fc.array(fc.tuple(name, value), { maxLength: 4 });
    let answered = 0;
    let handedOn = 0;
    await fc.assert(
      fc.asyncProperty(read, fc.boolean(), query, async (what, withTenant, pairs) => {
        const all = withTenant ? [['tenant', tenant.slug] as const, ...pairs] : pairs;
        const text = all
          .map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`)
          .join('&');
        const path = `/embed/v1/data/${what}/${chain[1].memberId}${text ? `?${text}` : ''}`;
        served = [];
        const first = await embed(path)();
        await new Promise((resolve) => setImmediate(resolve));
        expect(served).toHaveLength(1);
        if (served[0]) answered++;
        else handedOn++;
        // The lane answers only what the route accepts; the rest is the pipeline's to refuse.
        expect({ path, status: first.status, lane: served[0] }).toEqual({
          path,
          status: served[0] ? 200 : first.status,
          lane: first.status === 200,
        });
        const second = await viaPipeline(embed(path));
        expect({ path, ...comparable(first) }).toEqual({ path, ...comparable(second) });
      }),
      {
        numRuns: 120,
        // Always among them: repeated names, which the query parser makes arrays of, and the
        // prototype's names, which the pipe strips.
        examples: [
          ['cabinet', true, [['tenant', '1']]],
          [
            'leads',
            true,
            [
              ['status', 'all'],
              ['status', 'new'],
            ],
          ],
          [
            'bonuses',
            true,
            [
              ['page', '1'],
              ['page', '1'],
            ],
          ],
          [
            'partners',
            true,
            [
              ['__proto__', 'x'],
              ['constructor', '1'],
            ],
          ],
          [
            'referral-tree',
            true,
            [
              ['max_depth', '2'],
              ['status[]', 'all'],
            ],
          ],
        ],
      },
    );
    // Both kinds were generated: the property saw valid and invalid queries.
    expect(answered).toBeGreaterThan(5);
    expect(handedOn).toBeGreaterThan(5);
  });

  it('hands on the 429 of the rate limit, which both roads count by the one declaration', async () => {
    // The route's `@RateLimit('embed')`: 600 a minute per client IP and tenant. Spend the
    // minute's budget of this client, then ask once more on each road.
    const second = new Date().getSeconds();
    if (second > 50) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    // A tenant of its own, so that the other cases keep their budget.
    const other = await createTenant(t);
    const [member] = await createChain(t, other.key, 1);
    const redis = t.app.get<Redis>(REDIS);
    const window = Math.floor(Date.now() / 60_000);
    for (const ip of ['::ffff:127.0.0.1', '127.0.0.1', '::1']) {
      const key = `${t.config.queuePrefix}:rl:embed:${other.orgId}:${ip}:${window}`;
      await redis.set(key, '600', 'EX', 61);
    }
    const from = `https://${other.slug}.example`;
    const path = `/embed/v1/data/partners/${member.memberId}?tenant=${other.slug}`;
    const limited = await same(embed(path, from), 'hands on');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers['access-control-allow-origin']).toBe(from);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('short links: a redirect, cached or not, a landing page and an unknown code, alike', async () => {
    const link = await t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
      .set('Origin', origin)
      .set('Authorization', `Bearer ${tokenFor(chain[0].memberId)}`)
      .send({ target_type: 'website', target_id: `${origin}/shop?utm=a%20b` });
    expect(link.status).toBe(200);
    const follow = (code: string) => () =>
      t.http().get(`/s/${code}`).set('X-Request-Id', 'lane-test-1').redirects(0);
    const first = await same(follow(link.body.code), 'answers');
    expect(first.status).toBe(302);
    expect(withoutClickTime(first.headers['location'])).toBe(
      `${origin}/shop?utm=a%20b&ref=${link.body.signed_ref}`,
    );
    expect(first.headers['cache-control']).toBe('no-store');
    await same(follow(link.body.code), 'answers'); // from memory now
    // A landing page (an offer link with no template): the page, its CSP and nonce, alike.
    const offer = await t
      .http()
      .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
      .set('Origin', origin)
      .set('Authorization', `Bearer ${tokenFor(chain[0].memberId)}`)
      .send({ target_type: 'offer', target_id: 'summer', recommendation_text: 'Try <this>' });
    expect(offer.status).toBe(200);
    const landing = await same(follow(offer.body.code), 'answers');
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('Try &lt;this>');
    const unknown = await same(follow('ZZZZZZZZ'), 'answers');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/html/);
    covered.add('GET /s/:code');
  });

  it('covers every lane route', () => {
    expect([...covered].sort()).toEqual([...lanes.patterns].sort());
  });

  it('leaves other paths alone, quietly', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    for (const name of ['constructor', '__proto__', 'toString', 'cabinet']) {
      const res = await t.http().get(`/embed/v1/data/${name}/?tenant=${tenant.slug}`);
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
    }
    const inherited = await t
      .http()
      .get(`/embed/v1/data/constructor/${chain[0].memberId}?tenant=${tenant.slug}`);
    expect(inherited.status).toBe(404);
    const wrongCase = await t
      .http()
      .get(`/EMBED/v1/data/cabinet/${chain[1].memberId}?tenant=${tenant.slug}`)
      .set('Origin', origin);
    expect(wrongCase.status).toBe(200); // Express matches paths without case; the lane leaves it
    expect(warn.mock.calls.filter(([, message]) => String(message).includes('fast lane'))).toEqual(
      [],
    );
    warn.mockRestore();
    await new Promise((resolve) => setImmediate(resolve));
    expect(served.every((done) => done === false)).toBe(true);
  });

  it('counts its answers in the HTTP metrics under the route pattern', async () => {
    await embed(`/embed/v1/data/cabinet/${chain[1].memberId}?tenant=${tenant.slug}`)().expect(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(served).toEqual([true]);
    const metrics = await t.http().get('/metrics');
    const line = metrics.text
      .split('\n')
      .find((l) =>
        l.startsWith(
          'http_requests_total{method="GET",route="/embed/v1/data/cabinet/:user_id",status_code="200"}',
        ),
      );
    expect(Number(line?.split(' ')[1])).toBeGreaterThanOrEqual(1);
  });

  function tokenFor(memberId: string): string {
    return t.app.get(AccessService).issueEmbedToken(tenant.orgId, memberId).token;
  }
});
