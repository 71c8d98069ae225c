// docs/import-export.md: streamed CSV exports (RFC 4180, UTF-8, header row), and the round trip:
// a tenant's members.csv imported into an empty tenant gives back the same network, counters and
// totals.
import { parse } from 'csv-parse/sync';
import { createLead, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { networkOf, runImport } from '../../factories/transfer.factory';
import { upsertUser, type UpsertedMember } from '../../factories/users.factory';
import { createTestApp, TestApp } from '../../utils/create-test-app';

jest.setTimeout(120_000);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const rowsOf = (text: string) => parse<Record<string, string>>(text, { columns: true });

async function exportCsv(slug: string, kind: string, token = t.adminToken) {
  const res = await t
    .http()
    .get(`/admin/v1/tenants/${slug}/exports/${kind}.csv`)
    .set('Authorization', `Bearer ${token}`)
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
    });
  return {
    status: res.status,
    type: res.headers['content-type'],
    text: res.body as string,
  };
}

describe('exports', () => {
  it('round trip: members.csv imported into an empty tenant gives the same network', async () => {
    const source = await createTenant(t);
    const people: UpsertedMember[] = [];
    for (let i = 0; i < 40; i++) {
      const referrer = i ? people[Math.floor((i * 5) % i)] : undefined;
      people.push(
        await upsertUser(t, source.key, {
          external_id: `rt-${i}`,
          // Commas, quotes, a line break and non-ASCII text must survive the CSV.
          full_name: i % 3 ? `Имя ${i}, "junior"` : `Line\nbreak ${i}`,
          email: `rt${i}@example.com`,
          role: i % 4 ? 'partner' : 'leader',
          ...(referrer ? { referrer_user_id: referrer.serviceUserId } : {}),
        }),
      );
    }
    const exported = await exportCsv(source.slug, 'members');
    expect(exported.status).toBe(200);
    expect(exported.type).toMatch(/^text\/csv; charset=utf-8/);
    expect(exported.text.split('\r\n')[0]).toBe(
      'external_id,full_name,email,role,referrer_external_id,joined_at,group,' +
        'service_user_id,tenant_service_id,depth,downline_count',
    );
    expect(exported.text.endsWith('\r\n')).toBe(true);
    const rows: Record<string, string>[] = parse(exported.text, { columns: true });
    expect(rows).toHaveLength(40);
    const root = rows.find((r) => r.external_id === 'rt-0')!;
    expect(root).toMatchObject({ depth: '0', downline_count: '39', referrer_external_id: '' });
    expect(root.service_user_id).toBe(people[0].serviceUserId);

    const target = await createTenant(t);
    const result = await runImport(t, target.slug, exported.text);
    expect(result).toMatchObject({ status: 'succeeded', created: 40, errors: [] });
    expect(await networkOf(t, target.slug)).toEqual(await networkOf(t, source.slug));
    const again = await exportCsv(target.slug, 'members');
    const strip = (text: string) =>
      rowsOf(text).map((r) => ({
        ...r,
        service_user_id: undefined,
        tenant_service_id: undefined,
      }));
    // Same members, referrers, joined_at, depths and downline counts: the totals too.
    expect(strip(again.text)).toEqual(strip(exported.text));
  });

  it('streams leads, conversions and bonuses with their header rows', async () => {
    const tenant = await createTenant(t);
    const a = await upsertUser(t, tenant.key, { external_id: 'a' });
    const b = await upsertUser(t, tenant.key, {
      external_id: 'b',
      referrer_user_id: a.serviceUserId,
    });
    const lead = await createLead(t, tenant.key, b.serviceUserId, {
      contact: { name: 'Lead, with comma', email: 'lead@example.org' },
      metadata: { note: 'say "hi"' },
    });
    const conversion = await registerConversion(t, tenant.key, {
      lead_id: lead,
      amount_kopecks: 100_000,
      external_order_id: 'order-1',
    });
    const leads = parse((await exportCsv(tenant.slug, 'leads')).text, { columns: true });
    expect(leads).toEqual([
      expect.objectContaining({
        lead_id: lead,
        status: 'converted',
        referrer_user_id: b.serviceUserId,
        referrer_external_id: 'b',
        contact_name: 'Lead, with comma',
        metadata: '{"note": "say \\"hi\\""}',
      }),
    ]);
    const conversions = parse((await exportCsv(tenant.slug, 'conversions')).text, {
      columns: true,
    });
    expect(conversions).toEqual([
      expect.objectContaining({
        conversion_id: conversion.conversion_id,
        amount_kopecks: '100000',
        currency: 'RUB',
        status: expect.any(String),
      }),
    ]);
    const bonuses = rowsOf((await exportCsv(tenant.slug, 'bonuses')).text);
    expect(bonuses.map((x) => [x.external_id, x.amount_kopecks, x.status])).toEqual(
      expect.arrayContaining(
        conversion.cascaded_bonuses.map((c) => [
          c.user_id === a.serviceUserId ? 'a' : 'b',
          String(c.amount_kopecks),
          'pending',
        ]),
      ),
    );
    expect(bonuses).toHaveLength(conversion.cascaded_bonuses.length);
  });

  it('is for the owner or the platform, of this tenant only', async () => {
    const tenant = await createTenant(t);
    const viewer = await createStaffToken(t, tenant.slug, 'viewer');
    expect((await exportCsv(tenant.slug, 'members', viewer)).status).toBe(403);
    const owner = await createStaffToken(t, tenant.slug, 'owner');
    const empty = await exportCsv(tenant.slug, 'members', owner);
    expect(empty.status).toBe(200);
    expect(empty.text.split('\r\n').filter(Boolean)).toHaveLength(1);
    const payouts = await exportCsv(tenant.slug, 'payouts', owner);
    expect(payouts.status).toBe(200);
    expect(payouts.text).toBe(
      'payout_id,run_id,user_id,tenant_service_id,external_id,currency,amount_kopecks,status,' +
        'reference,failure_reason,created_at,paid_at,settled_at\r\n',
    );
    const other = await createTenant(t);
    expect((await exportCsv(other.slug, 'members', owner)).status).toBe(403);
  });
});
