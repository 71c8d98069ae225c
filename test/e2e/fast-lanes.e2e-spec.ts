import { Logger } from '@nestjs/common';
import { EmbedReadLane } from '../../src/embed/embed-read.lane';
import { createLead, registerConversion } from '../factories/money.factory';
import { createTenant, TestTenant } from '../factories/tenants.factory';
import { createChain, UpsertedUser } from '../factories/users.factory';
import { createTestApp, TestApp } from '../utils/create-test-app';

/**
 * The embed read lane (src/embed/embed-read.lane.ts) answers the five widget reads' successes
 * ahead of Express. Its answers must be the pipeline's, byte for byte and header for header, and
 * every refusal must still come from the pipeline.
 */
describe('fast lanes: the embed reads', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let origin: string;
  let chain: UpsertedUser[];
  let served: boolean[];

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMITS: 'on' });
    tenant = await createTenant(t);
    origin = `https://${tenant.slug}.example`;
    chain = await createChain(t, tenant.key, 3);
    const leadId = await createLead(t, tenant.key, chain[1].serviceUserId);
    await registerConversion(t, tenant.key, {
      lead_id: leadId,
      amount_kopecks: 50_000,
      external_order_id: 'lane-1',
    });
    // What the lane did with each request: answered (true) or handed on (false).
    const lane = t.app.get<EmbedReadLane, { answer: (...args: unknown[]) => Promise<boolean> }>(
      EmbedReadLane,
    );
    const answer = lane.answer.bind(lane);
    jest.spyOn(lane, 'answer').mockImplementation(async (...args) => {
      const done = await answer(...args);
      served.push(done);
      return done;
    });
  });
  beforeEach(() => (served = []));
  afterAll(() => t.close());

  const get = (path: string, from = origin) => t.http().get(path).set('Origin', from);
  /** Headers that differ between any two answers, whoever writes them. */
  const comparable = (headers: Record<string, string>) => {
    const rest = { ...headers };
    for (const name of ['date', 'x-request-id', 'connection', 'keep-alive']) delete rest[name];
    return rest;
  };

  it.each([
    ['cabinet', '', ''],
    ['bonuses', '&page=1&page_size=5', '&page=01&page_size=5'],
    ['leads', '&status=all&locale=en', '&status=all&locale=en&page=1.0'],
    ['referral-tree', '&max_depth=2', '&max_depth=02'],
    ['partners', '&page_size=20', '&page_size=020'],
  ])(
    '%s: the lane answers exactly what the pipeline answers',
    async (read, laneQuery, pipelineQuery) => {
      const member = read === 'cabinet' || read === 'leads' ? chain[1] : chain[0];
      const viaLane = await get(
        `/embed/v1/data/${read}/${member.memberId}?tenant=${tenant.slug}${laneQuery}`,
      );
      expect(served).toEqual([true]);
      // A query the lane does not parse (a leading zero) or a path in other case: the pipeline.
      const viaPipeline = await get(
        pipelineQuery
          ? `/embed/v1/data/${read}/${member.memberId}?tenant=${tenant.slug}${pipelineQuery}`
          : `/EMBED/v1/data/${read}/${member.memberId}?tenant=${tenant.slug}`,
      );
      expect(served).toEqual([true]);
      expect(viaLane.status).toBe(200);
      expect(viaPipeline.status).toBe(200);
      expect(viaLane.text).toBe(viaPipeline.text);
      expect(comparable(viaLane.headers)).toEqual(comparable(viaPipeline.headers));
      expect(viaLane.headers['x-request-id']).toMatch(/^[0-9A-Z]{26}$/);
    },
  );

  it('hands every refusal to the pipeline, which answers with its problem document', async () => {
    const cases: [string, string, number, string][] = [
      [
        `/embed/v1/data/cabinet/${chain[0].memberId}?tenant=${tenant.slug}`,
        'https://evil.example',
        403,
        'origin_not_allowed',
      ],
      [`/embed/v1/data/cabinet/mbr_unknown?tenant=${tenant.slug}`, origin, 404, 'user_not_found'],
      [
        `/embed/v1/data/cabinet/${chain[0].memberId}?tenant=no-such-tenant`,
        origin,
        404,
        'tenant_not_found',
      ],
      [
        `/embed/v1/data/leads/${chain[0].memberId}?tenant=${tenant.slug}&status=lost`,
        origin,
        400,
        'validation_failed',
      ],
      [
        `/embed/v1/data/referral-tree/${chain[0].memberId}?tenant=${tenant.slug}&max_depth=21`,
        origin,
        400,
        'validation_failed',
      ],
      [
        `/embed/v1/data/partners/${chain[0].memberId}?tenant=${tenant.slug}&extra=1`,
        origin,
        400,
        'validation_failed',
      ],
    ];
    for (const [path, from, status, code] of cases) {
      const res = await get(path, from);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status, code });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['vary']).toMatch(/Origin/);
    }
    // Paths that only look like a read (inherited property names included) are not the lane's:
    // handed on quietly, not by a lane that failed.
    const warn = jest.spyOn(Logger.prototype, 'warn');
    for (const name of ['constructor', '__proto__', 'toString', 'cabinet']) {
      const res = await get(`/embed/v1/data/${name}/?tenant=${tenant.slug}`);
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
    }
    const inherited = await get(
      `/embed/v1/data/constructor/${chain[0].memberId}?tenant=${tenant.slug}`,
    );
    expect(inherited.status).toBe(404);
    expect(warn.mock.calls.filter(([, message]) => String(message).includes('fast lane'))).toEqual(
      [],
    );
    warn.mockRestore();
    // The lane answered none of them (it handed on those it parsed).
    expect(served.every((done) => done === false)).toBe(true);
  });

  it('counts its answers in the HTTP metrics under the route pattern', async () => {
    await get(`/embed/v1/data/cabinet/${chain[1].memberId}?tenant=${tenant.slug}`).expect(200);
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
});
