import { signRef } from '../../../src/members/signed-ref';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { applicationsSuite } from '../../utils/applications-suite';

/**
 * docs/partners.md, "Applications": the staff's list, approval (a member under the recruiter, in
 * the chosen group, once under concurrent clicks) and rejection, their events and audit, roles
 * and another tenant's credentials.
 */
describe('partner applications: the Admin API', () => {
  const s = applicationsSuite();
  const refOf = (serviceUserId: string, orgId = s.tenant.orgId) =>
    signRef(
      { t: orgId, r: serviceUserId, d: 'dl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T' },
      s.t.config.refSigningSecret,
    );

  it('lists pending and decided applications, unconfirmed ones only when asked', async () => {
    await s.openDefault([{ name: 'site', label: 'Site', type: 'url', required: false }]);
    const other = await s.group({ name: 'Other' });
    const pending = await s.pending({
      email: 'p1@example.com',
      full_name: 'P One',
      answers: { site: 'https://p1.example' },
    });
    const elsewhere = await s.pending({
      group: other.slug,
      email: 'p2@example.com',
      full_name: 'P Two',
      answers: {},
    });
    const unconfirmed = await s.submit({ email: 'u@example.com', full_name: 'U', answers: {} });
    const all = await s.list();
    expect(all.status).toBe(200);
    expect(all.body.items.map((a: { application_id: string }) => a.application_id)).toEqual([
      elsewhere,
      pending,
    ]);
    expect(all.body.pagination).toEqual({ page: 1, page_size: 20, total: 2, total_pages: 1 });
    expect(all.body.items[1]).toEqual({
      application_id: pending,
      group_id: expect.stringMatching(/^grp_/),
      email: 'p1@example.com',
      full_name: 'P One',
      answers: { site: 'https://p1.example' },
      status: 'pending',
      referrer_user_id: null,
      user_id: null,
      reason: null,
      created_at: expect.any(String),
      decided_at: null,
    });
    const asked = await s.list('?status=unconfirmed', s.viewer);
    expect(asked.body.items.map((a: { application_id: string }) => a.application_id)).toEqual([
      unconfirmed.body.application_id,
    ]);
    const byGroup = await s.list(`?group_id=${other.group_id}&page_size=1`);
    expect(byGroup.body.items).toHaveLength(1);
    expect(byGroup.body.items[0].application_id).toBe(elsewhere);
    expect((await s.list('?status=nope')).status).toBe(400);
    expect((await s.list('?page_size=101')).status).toBe(400);
    expect((await s.get('apl_01JD0Z6V2Y8K3M4N5P6Q7R8S9T')).body.code).toBe('application_not_found');
  });

  it('approval under concurrent clicks makes one member, one event, one audit entry', async () => {
    await s.openDefault();
    const id = await s.pending({ email: 'Click@Example.com', full_name: 'Cleo', answers: {} });
    const clicks = await Promise.all(Array.from({ length: 10 }, () => s.approve(id)));
    const statuses = clicks.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(409)]);
    for (const r of clicks.filter((c) => c.status === 409)) {
      expect(r.body.code).toBe('invalid_transition');
    }
    const approved = clicks.find((r) => r.status === 200)!.body;
    expect(approved).toMatchObject({ status: 'approved', user_id: expect.stringMatching(/^usr_/) });
    expect(approved.decided_at).toEqual(expect.any(String));
    const members = await s.t.db.query(
      `SELECT id, external_id, email, email_verified, full_name, depth FROM members
        WHERE tenant_id = $1`,
      [s.tenant.orgId],
    );
    expect(members).toEqual([
      {
        id: expect.stringMatching(/^mbr_/),
        external_id: id,
        email: 'click@example.com',
        email_verified: true,
        full_name: 'Cleo',
        depth: 0,
      },
    ]);
    expect(await s.events('partner.approved')).toEqual([
      {
        application_id: id,
        user_id: approved.user_id,
        group_id: approved.group_id,
        referrer_user_id: null,
      },
    ]);
    const audit = await s.t.db.query(
      `SELECT action, target_id FROM audit_log WHERE tenant_id = $1 AND action LIKE 'application.%'`,
      [s.tenant.orgId],
    );
    expect(audit).toEqual([{ action: 'application.approved', target_id: id }]);
    // Decided: neither a second approval nor a rejection.
    expect((await s.reject(id, { reason: 'late' })).status).toBe(409);
  });

  it('the new partner joins under the recruiter of the ref, one level below, in the chosen group', async () => {
    await s.openDefault();
    const vip = await s.group({ name: 'VIP' });
    const [root, recruiter] = await createChain(s.t, s.tenant.key, 2);
    const id = await s.pending({
      email: 'recruit@example.com',
      full_name: 'Rae',
      answers: {},
      ref: refOf(recruiter.serviceUserId),
    });
    expect((await s.get(id)).body.referrer_user_id).toBe(recruiter.serviceUserId);
    const res = await s.approve(id, { group_id: vip.group_id });
    expect(res.status).toBe(200);
    expect(res.body.group_id).toBe(vip.group_id);
    const [member] = await s.t.db.query(
      `SELECT referrer_member_id, depth, root_member_id, group_id FROM members
        WHERE tenant_id = $1 AND external_id = $2`,
      [s.tenant.orgId, id],
    );
    expect(member).toEqual({
      referrer_member_id: recruiter.memberId,
      depth: 2,
      root_member_id: root.memberId,
      group_id: vip.group_id,
    });
    const [event] = await s.events('partner.approved');
    expect(event.referrer_user_id).toBe(recruiter.serviceUserId);
    const [applied] = await s.events('partner.applied');
    expect(applied.referrer_user_id).toBe(recruiter.serviceUserId);
    const [counts] = await s.t.db.query(
      `SELECT downline_count FROM members WHERE tenant_id = $1 AND id = $2`,
      [s.tenant.orgId, root.memberId],
    );
    expect(counts.downline_count).toBe(2);
  });

  it('a recruiter deactivated meanwhile is no longer the referrer', async () => {
    await s.openDefault();
    const second = await upsertUser(s.t, s.tenant.key, { full_name: 'Leaving' });
    const id2 = await s.pending({
      email: 'orphan2@example.com',
      full_name: 'O2',
      answers: {},
      ref: refOf(second.serviceUserId),
    });
    const deactivate = await s.t
      .http()
      .post(`/admin/v1/tenants/${s.tenant.slug}/users/${second.memberId}/deactivate`)
      .set('Authorization', `Bearer ${s.manager}`);
    expect(deactivate.status).toBe(200);
    const res = await s.approve(id2);
    expect(res.body.referrer_user_id).toBe(second.serviceUserId);
    const [orphan] = await s.t.db.query(
      `SELECT depth, referrer_member_id FROM members WHERE tenant_id = $1 AND external_id = $2`,
      [s.tenant.orgId, id2],
    );
    expect(orphan).toEqual({ depth: 0, referrer_member_id: null });
    const [event] = await s.events('partner.approved');
    expect(event.referrer_user_id).toBeNull();
  });

  it('approval reuses the usr_ of the same verified email; a later verified upsert takes the member', async () => {
    await s.openDefault();
    const elsewhere = await createTenant(s.t);
    const known = await upsertUser(s.t, elsewhere.key, {
      email: 'shared@example.com',
      email_verified: true,
    });
    const id = await s.pending({ email: 'shared@example.com', full_name: 'Sha', answers: {} });
    const approved = await s.approve(id);
    expect(approved.body.user_id).toBe(known.serviceUserId);

    const taken = await s.fed().upsertUser({
      external_id: 'crm-42',
      email: 'SHARED@example.com',
      email_verified: true,
    });
    expect(taken.status).toBe(200);
    expect(taken.body.service_user_id).toBe(known.serviceUserId);
    const rows = await s.t.db.query(`SELECT external_id FROM members WHERE tenant_id = $1`, [
      s.tenant.orgId,
    ]);
    expect(rows).toEqual([{ external_id: 'crm-42' }]);
  });

  it('rejection needs a reason, happens once, emits partner.rejected, audited', async () => {
    await s.openDefault();
    const id = await s.pending({ email: 'no@example.com', full_name: 'N', answers: {} });
    expect((await s.reject(id, {})).status).toBe(400);
    const clicks = await Promise.all(
      Array.from({ length: 5 }, () => s.reject(id, { reason: '<b>not a fit</b>' })),
    );
    expect(clicks.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect((await s.get(id)).body).toMatchObject({
      status: 'rejected',
      reason: '<b>not a fit</b>',
      user_id: null,
    });
    expect(await s.events('partner.rejected')).toEqual([
      { application_id: id, group_id: expect.any(String), reason: '<b>not a fit</b>' },
    ]);
    const audit = await s.t.db.query(
      `SELECT action, details FROM audit_log WHERE tenant_id = $1 AND target_id = $2`,
      [s.tenant.orgId, id],
    );
    expect(audit).toEqual([
      { action: 'application.rejected', details: { reason: '<b>not a fit</b>' } },
    ]);
    expect((await s.approve(id)).body.code).toBe('invalid_transition');
    // A new application of the same email is a new one.
    const again = await s.submit({ email: 'no@example.com', full_name: 'N', answers: {} });
    expect(again.status).toBe(201);
    expect(again.body.application_id).not.toBe(id);
  });

  it('an applicant who became a partner meanwhile is not made a second one', async () => {
    await s.openDefault();
    const id = await s.pending({ email: 'twice@example.com', full_name: 'T', answers: {} });
    const member = await upsertUser(s.t, s.tenant.key, { email: 'Twice@example.com' });
    const refused = await s.approve(id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    expect(refused.body.detail).toContain(member.memberId);
    expect((await s.get(id)).body.status).toBe('pending');
    expect(await s.events('partner.approved')).toEqual([]);
    expect((await s.reject(id, { reason: 'already a partner' })).status).toBe(200);
  });

  it('an unconfirmed application cannot be approved or rejected', async () => {
    await s.openDefault();
    const res = await s.submit({ email: 'wait@example.com', full_name: 'W', answers: {} });
    const id = res.body.application_id;
    expect((await s.approve(id)).body.code).toBe('invalid_transition');
    expect((await s.reject(id, { reason: 'x' })).body.code).toBe('invalid_transition');
  });

  it('auto_approve makes the confirmed applicant a partner at once', async () => {
    await s.openDefault([], true);
    const id = await s.pending({ email: 'auto@example.com', full_name: 'Ava', answers: {} });
    const app = await s.get(id);
    expect(app.body.status).toBe('approved');
    expect(app.body.user_id).toMatch(/^usr_/);
    expect(await s.events('partner.applied')).toHaveLength(1);
    expect(await s.events('partner.approved')).toHaveLength(1);
  });

  it('roles and tenants: a viewer reads but cannot decide; another tenant cannot read or approve', async () => {
    await s.openDefault();
    const id = await s.pending({ email: 'role@example.com', full_name: 'R', answers: {} });
    expect((await s.get(id, s.viewer)).status).toBe(200);
    const viewer = await s.approve(id, {}, s.viewer);
    expect(viewer.status).toBe(403);
    expect(viewer.body.code).toBe('forbidden');
    expect((await s.reject(id, { reason: 'x' }, s.viewer)).status).toBe(403);

    const other = await createTenant(s.t);
    const otherOwner = await createStaffToken(s.t, other.slug, 'owner');
    const foreignPath = await s.get(id, otherOwner);
    expect(foreignPath.status).toBe(403);
    expect(foreignPath.body.code).toBe('forbidden');
    expect((await s.approve(id, {}, otherOwner)).status).toBe(403);
    const ownPath = await s.get(id, otherOwner, other.slug);
    expect(ownPath.status).toBe(404);
    expect(ownPath.body.code).toBe('application_not_found');
    const approveOwn = await s.approve(id, {}, otherOwner, other.slug);
    expect(approveOwn.status).toBe(404);
    expect(approveOwn.body.code).toBe('application_not_found');
    expect((await s.list('', otherOwner, other.slug)).body.items).toEqual([]);
    expect((await s.get(id)).body.status).toBe('pending');
    // Another tenant's group is not a group of this one.
    const [foreignGroup] = await s.t.db.query(
      `SELECT id FROM groups WHERE tenant_id = $1 AND slug = 'default'`,
      [other.orgId],
    );
    const wrongGroup = await s.approve(id, { group_id: foreignGroup.id });
    expect(wrongGroup.status).toBe(404);
    expect(wrongGroup.body.code).toBe('group_not_found');
    expect((await s.get(id)).body.status).toBe('pending');
    // A ref signed for another tenant is refused.
    const recruiter = await upsertUser(s.t, other.key, { full_name: 'Foreign' });
    const foreignRef = await s.submit({
      email: 'fr@example.com',
      full_name: 'F',
      answers: {},
      ref: refOf(recruiter.serviceUserId, other.orgId),
    });
    expect(foreignRef.status).toBe(422);
    expect(foreignRef.body.code).toBe('invalid_ref');
  });
});
