/**
 * Members in partner groups (docs/partners.md): moving a member (audited, one
 * `partner.group_changed`, none for the group they are in), the Federation upsert's `group`, and
 * which program pays a conversion or a lead bonus: the offer's, else the referrer's group's,
 * else the tenant's, each tier paid by the one program the referrer's lead chose. Setup:
 * groups-suite.
 */
import { createLead, eventsOf, registerConversion } from '../../factories/money.factory';
import { createStaffToken, createTenant } from '../../factories/tenants.factory';
import { createChain, upsertUser } from '../../factories/users.factory';
import { adminApi } from '../../utils/api-client';
import { groupsSuite } from '../../utils/groups-suite';
import { expectProblem } from '../../utils/problem';

/** The tenant's own program: referrer 10 %, upline_1 3 %. */
const TENANT_TIERS = [
  { tier: 'referrer', percent_bp: 1000 },
  { tier: 'upline_1', percent_bp: 300 },
];
/** A group's: referrer 25 %, upline_1 5 %, upline_2 2 % (one tier more than the tenant's). */
const GROUP_PROGRAM = {
  lead_bonus_kopecks: 500,
  tiers: [
    { tier: 'referrer', percent_bp: 2500 },
    { tier: 'upline_1', percent_bp: 500 },
    { tier: 'upline_2', percent_bp: 200 },
  ],
};

describe('partner groups: members', () => {
  const s = groupsSuite({ program: { tiers: TENANT_TIERS } });

  const groupChanges = () => eventsOf(s.t, s.tenant.orgId, 'partner.group_changed');
  const paid = (bonuses: { user_id: string; amount_kopecks: number; tier: string }[]) =>
    bonuses.map((b) => [b.user_id, b.tier, b.amount_kopecks]);

  describe('moving a member', () => {
    it('moves, audits and emits one event; the same group again emits nothing', async () => {
      const group = await s.group({ slug: 'gold' });
      const from = await s.defaultGroup();
      const member = await upsertUser(s.t, s.tenant.key);
      const res = await s.moveMember(member.memberId, group.group_id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ user_id: member.memberId, group_id: group.group_id });
      expect(await s.groupOf(member.memberId)).toBe(group.group_id);
      // The Admin API's partner shows it, in the list and alone.
      const shown = await adminApi(s.t, s.viewer).raw(
        'get',
        `/admin/v1/tenants/${s.tenant.slug}/users/${member.memberId}`,
      );
      expect(shown.body.user.group_id).toBe(group.group_id);
      const listed = await adminApi(s.t, s.viewer).raw(
        'get',
        `/admin/v1/tenants/${s.tenant.slug}/users`,
      );
      expect(listed.body.items.map((u: { group_id: string }) => u.group_id)).toEqual([
        group.group_id,
      ]);

      const events = await groupChanges();
      expect(events.map((e) => e.payload)).toEqual([
        {
          user_id: member.serviceUserId,
          from_group_id: from.id,
          to_group_id: group.group_id,
          reason: 'manual',
        },
      ]);
      const audit = await s.t.db.query(
        `SELECT action, target_type, target_id, details FROM audit_log
          WHERE tenant_id = $1 AND action = 'user.group_changed'`,
        [s.tenant.orgId],
      );
      expect(audit).toEqual([
        {
          action: 'user.group_changed',
          target_type: 'user',
          target_id: member.memberId,
          details: { from_group_id: from.id, to_group_id: group.group_id },
        },
      ]);

      // By the usr_ id too; the group it is in already: no event, no audit entry.
      const again = await s.moveMember(member.serviceUserId, group.group_id, s.owner);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ user_id: member.memberId, group_id: group.group_id });
      expect(await groupChanges()).toHaveLength(1);
      const [{ n }] = await s.t.db.query(
        `SELECT count(*)::int AS n FROM audit_log WHERE tenant_id = $1 AND action = 'user.group_changed'`,
        [s.tenant.orgId],
      );
      expect(n).toBe(1);
      expect((await s.getGroup(group.group_id)).body.members_count).toBe(1);
    });

    it('concurrent moves of one member each see where the last one left it', async () => {
      const a = await s.group({ slug: 'a-side' });
      const b = await s.group({ slug: 'b-side' });
      const member = await upsertUser(s.t, s.tenant.key);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          s.moveMember(member.memberId, (i % 2 ? a : b).group_id),
        ),
      );
      expect(answers.every((r) => r.status === 200)).toBe(true);
      // The events chain: each starts where the one before ended, and the last ends where the member is.
      const events = (await groupChanges()).map((e) => e.payload);
      const start = (await s.defaultGroup()).id;
      let at = start;
      for (const e of events) {
        expect(e.from_group_id).toBe(at);
        expect(e.to_group_id).not.toBe(at);
        at = e.to_group_id as string;
      }
      expect(await s.groupOf(member.memberId)).toBe(at);
    });
  });

  describe('the Federation upsert with group', () => {
    it('a new member joins the group named, without an event', async () => {
      const group = await s.group({ slug: 'bloggers' });
      const member = await upsertUser(s.t, s.tenant.key, { group: 'bloggers' });
      expect(member.body.action).toBe('created');
      expect(await s.groupOf(member.memberId)).toBe(group.group_id);
      expect(await groupChanges()).toEqual([]);
    });

    it('an existing member moves (reason upsert); the same group is unchanged', async () => {
      const group = await s.group({ slug: 'agencies' });
      const member = await upsertUser(s.t, s.tenant.key, { full_name: 'Anna' });
      const moved = await s.fed().upsertUser({ external_id: member.externalId, group: 'agencies' });
      expect(moved.status).toBe(200);
      expect(moved.body.action).toBe('updated');
      expect(await s.groupOf(member.memberId)).toBe(group.group_id);
      expect((await groupChanges()).map((e) => e.payload)).toEqual([
        {
          user_id: member.serviceUserId,
          from_group_id: (await s.defaultGroup()).id,
          to_group_id: group.group_id,
          reason: 'upsert',
        },
      ]);
      const same = await s.fed().upsertUser({ external_id: member.externalId, group: 'agencies' });
      expect(same.body.action).toBe('unchanged');
      // Without group the member stays where they are.
      await s.fed().upsertUser({ external_id: member.externalId, full_name: 'Anna K' });
      expect(await s.groupOf(member.memberId)).toBe(group.group_id);
      expect(await groupChanges()).toHaveLength(1);
    });

    it('an unknown slug is 404 group_not_found and writes nothing', async () => {
      const res = await s.fed().upsertUser({ external_id: 'ghost', group: 'nowhere' });
      expectProblem(res, 404, 'group_not_found');
      const [{ n }] = await s.t.db.query(
        `SELECT count(*)::int AS n FROM members WHERE tenant_id = $1`,
        [s.tenant.orgId],
      );
      expect(n).toBe(0);
      expectProblem(
        await s.fed().upsertUser({ external_id: 'ghost', group: 'Not A Slug!' }),
        404,
        'group_not_found',
      );
      expectProblem(
        await s
          .fed()
          .raw('post', '/federation/v1/users/upsert', { external_id: 'ghost', group: 7 }),
        400,
        'validation_failed',
      );
    });

    it("the slug default is this tenant's default group; another tenant's slug is not found", async () => {
      const res = await s.fed().upsertUser({ external_id: 'x', group: 'default' });
      expect(res.status).toBe(200);
      expect(await s.groupOf(res.body.tenant_service_id)).toBe((await s.defaultGroup()).id);
      const other = await createTenant(s.t);
      const otherManager = await createStaffToken(s.t, other.slug, 'manager');
      expect(
        (await s.createGroup({ slug: 'theirs', name: 'T' }, otherManager, other.slug)).status,
      ).toBe(201);
      expectProblem(
        await s.fed().upsertUser({ external_id: 'x', group: 'theirs' }),
        404,
        'group_not_found',
      );
    });
  });

  describe('which program pays', () => {
    it("a referrer's group program pays every tier, the uplines' own groups notwithstanding", async () => {
      const group = await s.group({ slug: 'vip', program: GROUP_PROGRAM });
      const other = await s.group({
        slug: 'other',
        program: { tiers: [{ tier: 'referrer', percent_bp: 9000 }] },
      });
      const [root, mid, referrer] = await createChain(s.t, s.tenant.key, 3);
      expect((await s.moveMember(referrer.memberId, group.group_id)).status).toBe(200);
      // The upline in a group of its own is still paid by the referrer's group's program.
      expect((await s.moveMember(mid.memberId, other.group_id)).status).toBe(200);
      const leadId = await createLead(s.t, s.tenant.key, referrer.serviceUserId);

      const preview = await s.fed().previewConversion({
        lead_id: leadId,
        amount_kopecks: 10000,
        currency: 'RUB',
      });
      const conversion = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10000,
        external_order_id: 'o-vip',
      });
      const expected = [
        [referrer.serviceUserId, 'referrer', 2500],
        [mid.serviceUserId, 'upline_1', 500],
        [root.serviceUserId, 'upline_2', 200],
      ];
      expect(paid(conversion.cascaded_bonuses)).toEqual(expected);
      expect(paid(preview.body.cascaded_bonuses)).toEqual(expected);
      // And the lead bonus of the group's program.
      const [leadBonus] = await s.t.db.query(
        `SELECT amount_kopecks::int AS amount FROM bonuses
          WHERE tenant_id = $1 AND source_type = 'lead' AND source_id = $2`,
        [s.tenant.orgId, leadId],
      );
      expect(leadBonus).toEqual({ amount: 500 });
    });

    it("an offer's own program wins over the referrer's group's", async () => {
      const group = await s.group({ slug: 'vip', program: GROUP_PROGRAM });
      const offer = await adminApi(s.t, s.manager).createOffer(s.tenant.slug, {
        name: 'Premium',
        program: { tiers: [{ tier: 'referrer', percent_bp: 700 }] },
      });
      expect(offer.status).toBe(201);
      const [mid, referrer] = await createChain(s.t, s.tenant.key, 2);
      await s.moveMember(referrer.memberId, group.group_id);
      const leadId = await createLead(s.t, s.tenant.key, referrer.serviceUserId, {
        offer_id: offer.body.offer_id,
      });
      const conversion = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10000,
        external_order_id: 'o-offer',
      });
      expect(paid(conversion.cascaded_bonuses)).toEqual([
        [referrer.serviceUserId, 'referrer', 700],
      ]);
      expect(mid).toBeDefined();
      const [{ n }] = await s.t.db.query(
        `SELECT count(*)::int AS n FROM bonuses WHERE tenant_id = $1 AND source_type = 'lead'`,
        [s.tenant.orgId],
      );
      expect(n).toBe(0);
    });

    it("a referrer in a group without a program is paid by the tenant's, whatever the upline's group", async () => {
      const plain = await s.group({ slug: 'plain' });
      const vip = await s.group({ slug: 'vip', program: GROUP_PROGRAM });
      const [root, mid, referrer] = await createChain(s.t, s.tenant.key, 3);
      await s.moveMember(referrer.memberId, plain.group_id);
      await s.moveMember(mid.memberId, vip.group_id);
      const leadId = await createLead(s.t, s.tenant.key, referrer.serviceUserId);
      const conversion = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10000,
        external_order_id: 'o-plain',
      });
      expect(paid(conversion.cascaded_bonuses)).toEqual([
        [referrer.serviceUserId, 'referrer', 1000],
        [mid.serviceUserId, 'upline_1', 300],
      ]);
      expect(root).toBeDefined();
    });

    it('a group program changed or cleared pays the next conversion', async () => {
      const group = await s.group({ slug: 'vip', program: GROUP_PROGRAM });
      const [referrer] = await createChain(s.t, s.tenant.key, 1);
      await s.moveMember(referrer.memberId, group.group_id);
      const leadId = await createLead(s.t, s.tenant.key, referrer.serviceUserId);
      const first = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10000,
        external_order_id: 'o-1',
      });
      expect(paid(first.cascaded_bonuses)).toEqual([[referrer.serviceUserId, 'referrer', 2500]]);
      await s.updateGroup(group.group_id, { program: null });
      const second = await registerConversion(s.t, s.tenant.key, {
        lead_id: leadId,
        amount_kopecks: 10000,
        external_order_id: 'o-2',
      });
      expect(paid(second.cascaded_bonuses)).toEqual([[referrer.serviceUserId, 'referrer', 1000]]);
    });
  });
});
