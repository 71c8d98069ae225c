// docs/payouts.md §5, issue #32: a settle file is parsed as it arrives, within limits (a record
// of at most 64 KiB and 100 columns), so a 16 MiB file stalls nobody (item 5); its text follows
// the rule the JSON settle routes follow: bytes that are not UTF-8 and control characters are
// refused with the same `400 validation_failed` on both (item 6b); a problem document lists at
// most 50 errors, with `error_count` (item 6g).
import { createLead, registerConversion } from '../../factories/money.factory';
import { admin, approveBonus, runPayouts } from '../../factories/payouts.factory';
import { createTenant, TestTenant } from '../../factories/tenants.factory';
import { upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { streamPost } from '../../utils/stream-post';

jest.setTimeout(180_000);

const MiB = 1024 * 1024;
/**
 * What "the event loop never waits" means here, in ms: never held longer than 500 ms by the
 * process's own work (StreamedAnswer.maxHeldMs; process.cpuUsage counts every thread of the
 * process, the garbage collector's helpers too, so a tick's figure may exceed its wall time: a CI
 * run saw 225 ms for the 16 MiB line of commas), and no tick later than 5 s however loaded the
 * shared 2-core machine is (at a load of 16 it delays every tick of any request by 200-800 ms,
 * which is why the delay itself is bounded loosely). Before the limits the settle file held the
 * loop 20 s in one piece, and the NDJSON line kept it busy for ~48 s.
 */
const MAX_HELD_MS = 500;
const MAX_DELAY_MS = 5000;

let t: TestApp;
let a: TestTenant;
let runId: string;
let payoutId: string;
let amount: string;

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t, { payouts: { minimum_kopecks: 1 } });
  const partner = await upsertUser(t, a.key);
  const lead = await createLead(t, a.key, partner.serviceUserId, {
    contact: { name: 'Buyer', email: 'settle@example.org' },
  });
  const conv = await registerConversion(t, a.key, {
    lead_id: lead,
    amount_kopecks: 50000,
    external_order_id: 'o-settle',
  });
  await approveBonus(t, a.slug, conv.cascaded_bonuses[0].bonus_id);
  runId = (await runPayouts(t, a.slug)).run_id;
  const [row]: { id: string; amount_kopecks: string }[] = await t.db.query(
    `SELECT id, amount_kopecks FROM payouts WHERE tenant_id = $1`,
    [a.orgId],
  );
  payoutId = row.id;
  amount = row.amount_kopecks;
});
afterAll(() => t.close());

const settlePath = () => `/admin/v1/tenants/${a.slug}/payouts/runs/${runId}/settle`;
const settle = (body: string | Buffer) =>
  t.http().post(settlePath()).set(admin(t)).set('Content-Type', 'text/csv').send(body);

async function status(): Promise<{ status: string; reference: string | null }> {
  const [row] = await t.db.query(`SELECT status, reference FROM payouts WHERE id = $1`, [payoutId]);
  return row;
}

describe('a 16 MiB settle file with a very wide header', () => {
  it('is refused (400, line 1) at its 101st column, the event loop never waiting', async () => {
    // Under the 16 MiB limit, so that it is parsed (the route's first run is not measured).
    expect((await settle('payout_id,amount_kopecks,reference\n')).status).toBe(400);
    const wide = Buffer.concat([
      Buffer.from('payout_id,amount_kopecks,reference'),
      Buffer.alloc(16 * MiB - 1024, ','),
      Buffer.from(`\n${payoutId},${amount},R-1\n`),
    ]);
    const res = await streamPost(
      t,
      settlePath(),
      { ...admin(t), 'Content-Type': 'text/csv' },
      wide,
    );
    expect(res.maxHeldMs).toBeLessThan(MAX_HELD_MS);
    expect(res.maxDelayMs).toBeLessThan(MAX_DELAY_MS);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'line 1', message: 'has more than 100 fields' }],
    });
    expect((await status()).status).toBe('pending');
  });

  it('of wide names is refused at its first record over 64 KiB', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `c${i}_${'w'.repeat(4000)}`);
    const res = await settle(`payout_id,amount_kopecks,reference,${names.join(',')}\n`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'line 1', message: 'is longer than 64 KiB' }]);
  });
});

describe('control characters and bytes that are not UTF-8', () => {
  const header = 'payout_id,amount_kopecks,reference';
  it.each([
    ['ESC', 'R-\u001b[31m1'],
    ['BEL', 'R-\u00071'],
  ])('%s in a reference: the settle file and the JSON routes refuse it alike', async (_, ref) => {
    const file = await settle(`${header}\n${payoutId},${amount},${ref}\n`);
    expect(file.status).toBe(400);
    expect(file.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'line 2', message: 'reference must not contain control characters' }],
    });
    const staff = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/${payoutId}/paid`)
      .set(admin(t))
      .send({ reference: ref });
    const federation = await t
      .http()
      .post(`/federation/v1/payouts/${payoutId}/paid`)
      .set('X-Service-Tenant-Key', a.key)
      .send({ reference: ref });
    for (const json of [staff, federation]) {
      expect(json.status).toBe(400);
      expect(json.body).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'reference', message: 'must not contain control characters' }],
      });
    }
    expect(await status()).toEqual({ status: 'pending', reference: null });
  });

  it('broken UTF-8 in a reference: refused by the file and the JSON routes alike', async () => {
    const broken = (before: string, after: string) =>
      Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xc3]), Buffer.from(after)]);
    const file = await settle(broken(`${header}\n\n${payoutId},${amount},R-`, '1\n'));
    expect(file.status).toBe(400);
    expect(file.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'line 3', message: 'must be valid UTF-8' }],
    });
    // An encoded surrogate (ED A0 80) and a character cut at the end are not UTF-8 either.
    for (const bytes of [
      Buffer.concat([
        Buffer.from(`${header}\n${payoutId},${amount},R-`),
        Buffer.from([0xed, 0xa0, 0x80]),
      ]),
      Buffer.concat([
        Buffer.from(`${header}\n${payoutId},${amount},R-`),
        Buffer.from([0xe2, 0x82]),
      ]),
    ]) {
      const res = await settle(bytes);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'line 2', message: 'must be valid UTF-8' }]);
    }
    // Sent as raw bytes (supertest would serialise a Buffer as JSON).
    const json = (path: string, headers: Record<string, string>) =>
      streamPost(
        t,
        path,
        { ...headers, 'Content-Type': 'application/json' },
        broken('{"reference":"R-', '1"}'),
      );
    for (const res of [
      await json(`/admin/v1/tenants/${a.slug}/payouts/${payoutId}/paid`, admin(t)),
      await json(`/federation/v1/payouts/${payoutId}/paid`, { 'X-Service-Tenant-Key': a.key }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'body', message: 'must be valid UTF-8' }],
      });
    }
    // A JSON string with an unpaired surrogate: the same rule, already.
    const surrogate = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/${payoutId}/paid`)
      .set(admin(t))
      .set('Content-Type', 'application/json')
      .send('{"reference":"R-\\ud800"}');
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.code).toBe('validation_failed');
    expect(await status()).toEqual({ status: 'pending', reference: null });
  });

  it('UTF-8 cut anywhere between chunks is read whole, and the file settles', async () => {
    const file = Buffer.from(
      `\ufeff${header},full_name\n\n${payoutId},${amount},Ref-€-✓-😀,"Jörg ""J"" Müller"\n`,
    );
    const res = await streamPost(
      t,
      settlePath(),
      { ...admin(t), 'Content-Type': 'text/csv' },
      file,
      1,
    );
    expect(res.status).toBe(200);
    expect(await status()).toEqual({ status: 'paid', reference: 'Ref-€-✓-😀' });
  });
});

describe('the errors of a settle file', () => {
  it('are listed up to 50, each value cut short, with error_count', async () => {
    const lines = Array.from(
      { length: 200 },
      (_, i) => `pay_${String(i).padStart(4, '0')}${'x'.repeat(60_000)},1,R`,
    );
    const res = await settle(['payout_id,amount_kopecks,reference', ...lines].join('\n'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toHaveLength(50);
    expect(res.body.error_count).toBe(200);
    expect(res.body.errors[0]).toEqual({
      field: 'line 2',
      message: `payout_id "pay_0000${'x'.repeat(56)}…" is not a payout of this run`,
    });
    expect(JSON.stringify(res.body).length).toBeLessThan(16 * 1024);
  });
});
