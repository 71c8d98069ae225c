// docs/partners.md, "Payout details" (SPEC 14, issue #34 item 5): the details a partner enters
// (saved here through PayoutDetailsService, as the partner portal saves them) are sealed at rest,
// masked for staff and in the Admin API, copied onto each payout a run creates, in full in the
// run CSV for an owner only; `payouts.require_details` makes a run skip a partner without them;
// the settle upload takes the run CSV with or without the new columns; another tenant reads none.
import { parse } from 'csv-parse/sync';
import { render } from 'preact-render-to-string';
import { ValidationFailedError } from '../../../src/common/errors/domain-error';
import { PayoutDetailsForm } from '../../../src/payouts/payout-details/payout-details.form';
import { PayoutDetailsService } from '../../../src/payouts/payout-details/payout-details.service';
import { createLead, registerConversion } from '../../factories/money.factory';
import { admin, approveBonus, runPayouts } from '../../factories/payouts.factory';
import { createStaffToken, createTenant, TestTenant } from '../../factories/tenants.factory';
import { UpsertedMember, upsertUser } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';
import { orgSignIn } from '../../utils/pages-http';

jest.setTimeout(120_000);

const IBAN = 'DE89370400440532013000';
const NEW_IBAN = 'GB82WEST12345698765432';
const ACCOUNT = '40602810700000000025';
const BIK = '049805746';
const PAYPAL = 'jane.doe@example.com';
/** A holder a page, a mail or a spreadsheet could take for markup or a formula. */
const HOSTILE = `=HYPERLINK("http://x")</p><script>alert("x")</script>&'<b>`;

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let details: PayoutDetailsService;
let tokens: { owner: string; manager: string; viewer: string; ownerOfB: string };
let iban: UpsertedMember;
let russian: UpsertedMember;
let paypal: UpsertedMember;
let none: UpsertedMember;
let ofB: UpsertedMember;

/** A partner of `tenant` with an approved bonus of `kopecks` × 10% (the default program). */
async function earning(tenant: TestTenant, name: string, kopecks: number) {
  const m = await upsertUser(t, tenant.key, { full_name: name });
  const lead = await createLead(t, tenant.key, m.serviceUserId);
  const conv = await registerConversion(t, tenant.key, {
    lead_id: lead,
    amount_kopecks: kopecks,
    external_order_id: `o-${m.externalId}`,
  });
  await approveBonus(t, tenant.slug, conv.cascaded_bonuses[0].bonus_id);
  return m;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function runCsv(runId: string, token: string) {
  const res = await t
    .http()
    .get(`/admin/v1/tenants/${a.slug}/payouts/runs/${runId}.csv`)
    .set(bearer(token));
  expect(res.status).toBe(200);
  return { text: res.text, rows: parse<Record<string, string>>(res.text, { columns: true }) };
}

async function available(memberId: string): Promise<number> {
  const rows: { available_kopecks: string }[] = await t.db.query(
    `SELECT available_kopecks FROM ledger_balances WHERE tenant_id = $1 AND member_id = $2`,
    [a.orgId, memberId],
  );
  return Number(rows[0]?.available_kopecks ?? 0);
}

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t, { payouts: { minimum_kopecks: 1, require_details: true } });
  b = await createTenant(t);
  details = t.app.get(PayoutDetailsService);
  tokens = {
    owner: await createStaffToken(t, a.slug, 'owner'),
    manager: await createStaffToken(t, a.slug, 'manager'),
    viewer: await createStaffToken(t, a.slug, 'viewer'),
    ownerOfB: await createStaffToken(t, b.slug, 'owner'),
  };
  iban = await earning(a, 'Iban Partner', 100000);
  russian = await earning(a, 'Russian Partner', 200000);
  paypal = await earning(a, 'Paypal Partner', 300000);
  none = await earning(a, 'No Details', 400000);
  ofB = await upsertUser(t, b.key, { full_name: 'Partner of B' });
});
afterAll(() => t.close());

describe('saving', () => {
  it.each([
    [{ method: 'bank_account', holder: 'A', iban: 'DE89370400440532013001' }, 'iban'],
    [{ method: 'bank_account', holder: 'A', account: '40602810600000000025', bik: BIK }, 'account'],
    [{ method: 'bank_account', holder: 'A', account: ACCOUNT, bik: '04980574' }, 'bik'],
    [{ method: 'paypal', email: 'nope' }, 'email'],
  ])('refuses %j: 400 validation_failed naming %s, nothing stored', async (input, field) => {
    const error = await details.save(a.orgId, iban.memberId, input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect(error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((error as ValidationFailedError).errors!.map((e) => e.field)).toEqual([field]);
    expect(await details.getMasked(a.orgId, iban.memberId)).toBeNull();
  });

  it('refuses a member of another tenant as an unknown user', async () => {
    const error = await details
      .save(b.orgId, iban.memberId, { method: 'paypal', email: PAYPAL })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 404, code: 'user_not_found' });
  });

  it('stores the three kinds sealed: the raw rows hold none of the details', async () => {
    await expect(
      details.save(a.orgId, iban.memberId, {
        method: 'bank_account',
        holder: 'Anna Petrova',
        iban: 'de89 3704 0044 0532 0130 00',
      }),
    ).resolves.toMatchObject({ method: 'bank_account', masked: '•••• 3000' });
    await details.save(a.orgId, russian.memberId, {
      method: 'bank_account',
      holder: HOSTILE,
      account: ACCOUNT,
      bik: BIK,
    });
    await details.save(a.orgId, paypal.memberId, { method: 'paypal', email: PAYPAL });

    const rows: Record<string, unknown>[] = await t.db.query(
      `SELECT * FROM payout_details WHERE tenant_id = $1 ORDER BY member_id`,
      [a.orgId],
    );
    expect(rows).toHaveLength(3);
    const raw = JSON.stringify(rows);
    for (const secret of [IBAN, IBAN.slice(4), ACCOUNT, ACCOUNT.slice(-8), BIK, PAYPAL, 'jane'])
      expect(raw).not.toContain(secret);
    expect(raw).not.toContain('Anna Petrova');
    expect(raw).not.toContain('HYPERLINK');
    for (const row of rows) expect(row.sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);

    // Audited with the method and the masked form, never the details.
    const audit: { actor_type: string; details: Record<string, unknown> }[] = await t.db.query(
      `SELECT actor_type, details FROM audit_log
        WHERE tenant_id = $1 AND action = 'payout_details.updated' AND target_id = $2`,
      [a.orgId, iban.memberId],
    );
    expect(audit).toEqual([
      {
        actor_type: 'partner',
        details: { method: 'bank_account', masked: '•••• 3000', previous_method: null },
      },
    ]);
  });

  it('answers them masked', async () => {
    expect(await details.getMasked(a.orgId, iban.memberId)).toMatchObject({
      method: 'bank_account',
      masked: '•••• 3000',
    });
    expect(await details.getMasked(a.orgId, russian.memberId)).toMatchObject({
      masked: '•••• 0025',
    });
    expect(await details.getMasked(a.orgId, paypal.memberId)).toMatchObject({
      method: 'paypal',
      masked: 'j•••@example.com',
    });
    expect(await details.getMasked(a.orgId, none.memberId)).toBeNull();
  });
});

describe('staff see them masked', () => {
  it('in the Admin API partner (by mbr_ or usr_), null for a partner without', async () => {
    for (const id of [iban.memberId, iban.serviceUserId]) {
      const res = await t
        .http()
        .get(`/admin/v1/tenants/${a.slug}/users/${id}`)
        .set(bearer(tokens.viewer));
      expect(res.status).toBe(200);
      expect(res.body.payout_details).toEqual({ method: 'bank_account', masked: '•••• 3000' });
      expect(JSON.stringify(res.body)).not.toContain(IBAN);
    }
    const without = await t
      .http()
      .get(`/admin/v1/tenants/${a.slug}/users/${none.memberId}`)
      .set(bearer(tokens.owner));
    expect(without.body.payout_details).toBeNull();
  });

  it('on the console partner page', async () => {
    const cookie = await orgSignIn(() => t.http(), tokens.viewer);
    const page = await t
      .http()
      .get(`/org/${a.slug}/partners/${russian.memberId}`)
      .set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-payout-details="bank_account"');
    expect(page.text).toContain('•••• 0025');
    expect(page.text).not.toContain(ACCOUNT);
    expect(page.text).not.toContain('HYPERLINK');
    // The payouts page says the tenant requires details (its language: the tenant's, Russian).
    const payouts = await t.http().get(`/org/${a.slug}/payouts`).set('Cookie', cookie);
    expect(payouts.status).toBe(200);
    expect(payouts.text).toContain('партнёры без реквизитов пропускаются');
  });
});

describe('another tenant', () => {
  it("cannot read them: B's owner is refused on A, and A's partner is unknown on B", async () => {
    const onA = await t
      .http()
      .get(`/admin/v1/tenants/${a.slug}/users/${iban.memberId}`)
      .set(bearer(tokens.ownerOfB));
    expect(onA.status).toBe(403);
    const onB = await t
      .http()
      .get(`/admin/v1/tenants/${b.slug}/users/${iban.memberId}`)
      .set(bearer(tokens.ownerOfB));
    expect(onB.status).toBe(404);
    expect(onB.body.code).toBe('user_not_found');
    const withKey = await t
      .http()
      .get(`/admin/v1/tenants/${a.slug}/users/${iban.memberId}`)
      .set('X-Service-Tenant-Key', b.key);
    expect(withKey.status).toBe(401);
    expect(await details.getMasked(b.orgId, iban.memberId)).toBeNull();
  });

  it("does not open A's sealed details moved onto its own member's row", async () => {
    await t.db.query(
      `INSERT INTO payout_details (tenant_id, member_id, method, sealed)
       SELECT $2, $3, method, sealed FROM payout_details WHERE tenant_id = $1 AND member_id = $4`,
      [a.orgId, b.orgId, ofB.memberId, iban.memberId],
    );
    await expect(details.getMasked(b.orgId, ofB.memberId)).rejects.toThrow();
    await t.db.query(`DELETE FROM payout_details WHERE tenant_id = $1`, [b.orgId]);
  });
});

describe('payout runs', () => {
  let firstRun: string;
  let secondRun: string;

  it('with require_details skip the partner without details, whose balance stays', async () => {
    const before = await available(none.memberId);
    expect(before).toBe(40000);
    const run = await runPayouts(t, a.slug);
    expect(run).toMatchObject({
      payouts_count: 3,
      total_kopecks: 10000 + 20000 + 30000,
      currency_totals: { RUB: 60000 },
    });
    firstRun = run.run_id;
    expect(await available(none.memberId)).toBe(40000);
    for (const m of [iban, russian, paypal]) expect(await available(m.memberId)).toBe(0);
    const payouts: { member_id: string; details_method: string; details_sealed: string }[] =
      await t.db.query(
        `SELECT member_id, details_method, details_sealed FROM payouts WHERE run_id = $1`,
        [firstRun],
      );
    expect(payouts.map((p) => p.member_id).sort()).toEqual(
      [iban.memberId, russian.memberId, paypal.memberId].sort(),
    );
    const raw = JSON.stringify(payouts);
    for (const secret of [IBAN, ACCOUNT, PAYPAL]) expect(raw).not.toContain(secret);
    for (const p of payouts) expect(p.details_sealed).toMatch(/^v1\./);
  });

  it('write the full details in the run CSV for an owner (and the platform), the copy made then', async () => {
    // Changed after the run: the run's payouts keep the details of their creation.
    await details.save(a.orgId, iban.memberId, {
      method: 'bank_account',
      holder: 'Anna Petrova',
      iban: NEW_IBAN,
    });
    for (const token of [tokens.owner, t.adminToken]) {
      const { text, rows } = await runCsv(firstRun, token);
      expect(text.split('\r\n')[0]).toBe(
        'payout_id,user_id,external_id,full_name,email,currency,amount_kopecks,amount,' +
          'method,details_masked,holder,iban,account,bik,paypal_email',
      );
      const by = new Map(rows.map((r) => [r.user_id, r]));
      expect(by.get(iban.serviceUserId)).toMatchObject({
        method: 'bank_account',
        details_masked: '•••• 3000',
        holder: 'Anna Petrova',
        iban: IBAN,
        account: '',
        bik: '',
        paypal_email: '',
      });
      expect(by.get(russian.serviceUserId)).toMatchObject({
        method: 'bank_account',
        details_masked: '•••• 0025',
        // A cell a spreadsheet would evaluate gets a leading ' (common/csv/csv.ts).
        holder: `'${HOSTILE}`,
        iban: '',
        account: ACCOUNT,
        bik: BIK,
      });
      expect(by.get(paypal.serviceUserId)).toMatchObject({
        method: 'paypal',
        details_masked: 'j•••@example.com',
        holder: '',
        paypal_email: PAYPAL,
      });
      expect(text).not.toContain(NEW_IBAN);
    }
  });

  it('write them masked, with no full detail, for a manager and a viewer', async () => {
    for (const token of [tokens.manager, tokens.viewer]) {
      const { text, rows } = await runCsv(firstRun, token);
      expect(rows).toHaveLength(3);
      for (const r of rows) {
        expect(r.method).toMatch(/^(bank_account|paypal)$/);
        expect(r.details_masked).not.toBe('');
        expect([r.holder, r.iban, r.account, r.bik, r.paypal_email]).toEqual(['', '', '', '', '']);
      }
      for (const secret of [IBAN, ACCOUNT, BIK, PAYPAL, 'Anna Petrova', 'HYPERLINK'])
        expect(text).not.toContain(secret);
    }
  });

  it('settle from the new CSV with its details columns', async () => {
    const { text } = await runCsv(firstRun, tokens.owner);
    const lines = text.split('\r\n').filter(Boolean);
    const file = [`${lines[0]},reference`, ...lines.slice(1).map((l, i) => `${l},NEW-${i}`)].join(
      '\r\n',
    );
    const res = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/runs/${firstRun}/settle`)
      .set(bearer(tokens.manager))
      .set('Content-Type', 'text/csv')
      .send(file);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ run_id: firstRun, paid_count: 3 });
  });

  it('without require_details pay the partner without details too, with empty details', async () => {
    const patch = await t
      .http()
      .patch(`/admin/v1/tenants/${a.slug}`)
      .set(admin(t))
      .send({ payouts: { require_details: false } });
    expect(patch.status).toBe(200);
    expect(patch.body.payouts.require_details).toBe(false);
    const run = await runPayouts(t, a.slug);
    expect(run).toMatchObject({ payouts_count: 1, total_kopecks: 40000 });
    secondRun = run.run_id;
    expect(await available(none.memberId)).toBe(0);
    const { rows } = await runCsv(secondRun, tokens.owner);
    expect(rows).toEqual([
      expect.objectContaining({
        user_id: none.serviceUserId,
        method: '',
        details_masked: '',
        holder: '',
        iban: '',
      }),
    ]);
  });

  it('settle from the CSV of before, without the new columns', async () => {
    const { rows } = await runCsv(secondRun, tokens.owner);
    const old = [
      'payout_id,user_id,external_id,full_name,email,currency,amount_kopecks,amount,reference',
    ]
      .concat(
        rows.map((r) =>
          [
            r.payout_id,
            r.user_id,
            r.external_id,
            r.full_name,
            r.email,
            r.currency,
            r.amount_kopecks,
            r.amount,
            'OLD-1',
          ].join(','),
        ),
      )
      .join('\r\n');
    const res = await t
      .http()
      .post(`/admin/v1/tenants/${a.slug}/payouts/runs/${secondRun}/settle`)
      .set(bearer(tokens.owner))
      .set('Content-Type', 'text/csv')
      .send(old);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ run_id: secondRun, paid_count: 1 });
  });
});

describe('the form view', () => {
  it('escapes a hostile holder posted back with an error, and shows the stored details masked', async () => {
    const current = await details.getMasked(a.orgId, russian.memberId);
    // As the portal's POST hands its form body to the service: refused, nothing changed.
    const result = await details.saveForm(a.orgId, russian.memberId, {
      _csrf: 'c',
      method: 'bank_account',
      holder: HOSTILE,
      iban: 'DE89370400440532013001',
    });
    expect(result).toEqual({
      posted: {
        values: { method: 'bank_account', holder: HOSTILE, iban: 'DE89370400440532013001' },
        errors: [{ field: 'iban', message: 'has wrong check digits' }],
      },
    });
    expect(await details.getMasked(a.orgId, russian.memberId)).toEqual(current);
    const html = render(
      PayoutDetailsForm({
        action: `/p/${a.slug}/payouts`,
        csrf: 'c',
        lang: 'en',
        current: current && { method: current.method, masked: current.masked },
        posted: 'posted' in result ? result.posted : undefined,
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;script>');
    expect(html).toContain('•••• 0025');
    expect(html).not.toContain(ACCOUNT);
    expect(html).toContain('IBAN has wrong check digits.');
  });
});

describe('the OpenAPI document', () => {
  it('describes payout_details on the partner (nullable) and require_details in the settings', async () => {
    const doc = (await t.http().get('/docs/openapi.json')).body as {
      components: { schemas: Record<string, { properties: Record<string, object> }> };
    };
    const { schemas } = doc.components;
    expect(schemas.PartnerDetailResponse.properties.payout_details).toMatchObject({
      nullable: true,
    });
    expect(Object.keys(schemas.PartnerPayoutDetailsResponse.properties).sort()).toEqual([
      'masked',
      'method',
    ]);
    expect(schemas.PayoutSettingsDto.properties.require_details).toMatchObject({
      type: 'boolean',
    });
    expect(schemas.PayoutSettingsResponse.properties.require_details).toMatchObject({
      type: 'boolean',
    });
  });
});
