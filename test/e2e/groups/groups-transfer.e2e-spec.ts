/**
 * Partner groups in the import and the members export (docs/partners.md, docs/import-export.md):
 * `group` places new members and moves existing ones (one `partner.group_changed` each, reason
 * `import`, written with the import), an unknown slug is a row error and writes nothing, and the
 * export names each member's group. Setup: groups-suite.
 */
import { parse } from 'csv-parse/sync';
import { eventsOf } from '../../factories/money.factory';
import { runImport } from '../../factories/transfer.factory';
import { upsertUser } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { groupsSuite } from '../../utils/groups-suite';

describe('partner groups: import and export', () => {
  // A webhook at a loopback address, to see the moves' deliveries written (never delivered).
  const s = groupsSuite({}, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  const HEADER = 'external_id,full_name,referrer_external_id,group';
  const members = () =>
    s.t.db.query<{ external_id: string; slug: string }[]>(
      `SELECT m.external_id, g.slug FROM members m
         JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
        WHERE m.tenant_id = $1 ORDER BY m.external_id`,
      [s.tenant.orgId],
    );

  it('places new members, moves existing ones with one event each, and is idempotent', async () => {
    const vip = await s.group({ slug: 'vip' });
    const agencies = await s.group({ slug: 'agencies' });
    const stays = await upsertUser(s.t, s.tenant.key, { external_id: 'old-1' });
    const moves = await upsertUser(s.t, s.tenant.key, { external_id: 'old-2' });
    const hook = await adminApi(s.t, s.owner).putWebhook(s.tenant.slug, {
      url: 'https://localhost:9/hook',
      events: ['partner.group_changed'],
    });
    expect(hook.status).toBe(200);
    const file = [
      HEADER,
      'new-1,New One,,vip',
      'new-2,New Two,new-1,',
      'old-1,Old One,,default',
      'old-2,Old Two,,agencies',
      '',
    ].join('\n');
    const done = await runImport(s.t, s.tenant.slug, file);
    expect(done).toMatchObject({ status: 'succeeded', created: 2, updated: 2, unchanged: 0 });
    expect(await members()).toEqual([
      { external_id: 'new-1', slug: 'vip' },
      { external_id: 'new-2', slug: 'default' },
      { external_id: 'old-1', slug: 'default' },
      { external_id: 'old-2', slug: 'agencies' },
    ]);
    const events = await eventsOf(s.t, s.tenant.orgId, 'partner.group_changed');
    expect(events.map((e) => e.payload)).toEqual([
      {
        user_id: moves.serviceUserId,
        from_group_id: (await s.defaultGroup()).id,
        to_group_id: agencies.group_id,
        reason: 'import',
      },
    ]);
    // Delivered like any event: the stored bytes are the envelope JSON.stringify would write.
    const [row] = await s.t.db.query(
      `SELECT body FROM events WHERE tenant_id = $1 AND event_type = 'partner.group_changed'`,
      [s.tenant.orgId],
    );
    expect(row.body).toBe(JSON.stringify(events[0]));
    // And its delivery, written in the import's transaction too.
    const deliveries = await s.t.db.query(
      `SELECT event_id FROM webhook_deliveries WHERE tenant_id = $1`,
      [s.tenant.orgId],
    );
    expect(deliveries).toEqual([{ event_id: events[0].event_id }]);
    expect(stays).toBeDefined();
    expect(vip).toBeDefined();

    // The same file again: nothing changes, no event.
    const again = await runImport(s.t, s.tenant.slug, file);
    expect(again).toMatchObject({ status: 'succeeded', created: 0, updated: 0, unchanged: 4 });
    expect(await eventsOf(s.t, s.tenant.orgId, 'partner.group_changed')).toHaveLength(1);
  });

  it('an unknown slug is a group_not_found row error, and nothing is written', async () => {
    await s.group({ slug: 'vip' });
    await upsertUser(s.t, s.tenant.key, { external_id: 'old-1' });
    const file = [HEADER, 'a,A,,vip', 'b,B,,nowhere', 'old-1,Old,,nowhere', 'c,C,,VIP', ''].join(
      '\n',
    );
    const done = await runImport(s.t, s.tenant.slug, file);
    expect(done.status).toBe('failed');
    expect(done.errors).toEqual([
      { line: 3, code: 'group_not_found', message: expect.stringContaining('nowhere') },
      { line: 4, code: 'group_not_found', message: expect.stringContaining('nowhere') },
      { line: 5, code: 'group_not_found', message: expect.stringContaining('VIP') },
    ]);
    expect(await members()).toEqual([{ external_id: 'old-1', slug: 'default' }]);
    expect(await eventsOf(s.t, s.tenant.orgId, 'partner.group_changed')).toEqual([]);
  });

  it("another tenant's group slug is not found in this one", async () => {
    const other = await s.t
      .http()
      .post('/admin/v1/tenants')
      .set('Authorization', `Bearer ${s.t.adminToken}`)
      .send({ slug: `o-${s.tenant.slug}`, display_name: 'O', allowed_origins: [] });
    expect(other.status).toBe(201);
    const created = await s.t
      .http()
      .post(`/admin/v1/tenants/o-${s.tenant.slug}/groups`)
      .set('Authorization', `Bearer ${s.t.adminToken}`)
      .send({ slug: 'theirs', name: 'T' });
    expect(created.status).toBe(201);
    const done = await runImport(s.t, s.tenant.slug, `${HEADER}\na,A,,theirs\n`);
    expect(done.errors.map((e) => e.code)).toEqual(['group_not_found']);
  });

  it("the members export names each member's group, and imports back", async () => {
    await s.group({ slug: 'vip' });
    await runImport(s.t, s.tenant.slug, `${HEADER}\nr,Root,,vip\nc,Child,r,\n`);
    const exported = await s.t
      .http()
      .get(`/admin/v1/tenants/${s.tenant.slug}/exports/members.csv`)
      .set('Authorization', `Bearer ${s.owner}`);
    expect(exported.status).toBe(200);
    const rows: Record<string, string>[] = parse(exported.text, { columns: true });
    expect(rows.map((r) => [r.external_id, r.group])).toEqual([
      ['r', 'vip'],
      ['c', 'default'],
    ]);
    // Into the same tenant again: every row unchanged.
    const back = await runImport(s.t, s.tenant.slug, exported.text);
    expect(back).toMatchObject({ status: 'succeeded', unchanged: 2 });
  });
});
