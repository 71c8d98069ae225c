import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EntityRows, pageTotal } from '../database/entity-rows';
import { ERASED, redactColumns } from '../database/redaction';
import { PersonalData } from '../common/privacy/personal-data.decorator';
import { TransactionHost } from '../database/transaction-host';
import { MemberEntity } from './member.entity';

/**
 * A tree level's statements (MembersRepository.childrenOf; the embed benchmark prints their plans).
 * Parameters: tenant, the parent (`oneParent`) or the parents' ids (`parents`), limit.
 *
 * Of several parents, each gives at most `limit` ids through ix_members_referrer (index only), and
 * only the kept ones are read in full, so a first line of thousands with tens of thousands of
 * children costs what is returned. One parent's children (the root's first line) are all kept:
 * they are read straight from that index scan, without a second lookup per row (a first line of
 * 957 cost 4,900 buffer reads that way, 940 this way).
 */
export const TREE_LEVEL_SQL = {
  oneParent: `SELECT id, referrer_member_id, full_name, role, depth, downline_count FROM members
     WHERE tenant_id = $1 AND referrer_member_id = $2
     ORDER BY created_at, id LIMIT $3`,
  parents: `SELECT m.id, m.referrer_member_id, m.full_name, m.role, m.depth, m.downline_count
     FROM (SELECT c.id, c.created_at
             FROM unnest($2::text[]) AS p (id)
             CROSS JOIN LATERAL (
               SELECT id, created_at FROM members
                WHERE tenant_id = $1 AND referrer_member_id = p.id
                ORDER BY created_at, id LIMIT $3) c
            ORDER BY c.created_at, c.id LIMIT $3) k
     JOIN members m ON m.tenant_id = $1 AND m.id = k.id
    ORDER BY k.created_at, k.id`,
};

/** What a referral-tree node shows of a member. */
export type TreeMember = Pick<
  MemberEntity,
  'id' | 'referrerMemberId' | 'fullName' | 'role' | 'depth' | 'downlineCount'
>;

export interface UplineMember {
  id: string;
  serviceUserId: string;
  isActive: boolean;
}

/** Tenant members and the referral network; every method takes the tenant id first. */
@Injectable()
export class MembersRepository {
  private readonly rows: EntityRows<MemberEntity>;

  constructor(
    private readonly tx: TransactionHost,
    dataSource: DataSource,
  ) {
    this.rows = new EntityRows(dataSource, MemberEntity);
  }

  private get repo() {
    return this.tx.manager.getRepository(MemberEntity);
  }

  async findById(tenantId: string, memberId: string): Promise<MemberEntity | null> {
    const [row]: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.rows.select('m')} FROM members m WHERE m.tenant_id = $1 AND m.id = $2`,
      [tenantId, memberId],
    );
    return row ? this.rows.from(row) : null;
  }

  /** A member by email, case-insensitively (ix_members_email); the oldest if several share it. */
  findByEmail(tenantId: string, email: string): Promise<MemberEntity | null> {
    return this.repo
      .createQueryBuilder('m')
      .where('m.tenant_id = :tenantId AND lower(m.email) = :email', {
        tenantId,
        email: email.toLowerCase(),
      })
      .orderBy('m.created_at', 'ASC')
      .getOne();
  }

  async markClaimed(tenantId: string, memberId: string): Promise<void> {
    await this.repo.update(
      { tenantId, id: memberId, claimRequired: true },
      { claimRequired: false },
    );
  }

  findByServiceUser(tenantId: string, serviceUserId: string): Promise<MemberEntity | null> {
    return this.repo.findOneBy({ tenantId, serviceUserId });
  }

  /** The member named by its service user id (`usr_…`) or its surrogate (`mbr_…`). */
  findByRef(tenantId: string, ref: string): Promise<MemberEntity | null> {
    return ref.startsWith('mbr_')
      ? this.findById(tenantId, ref)
      : this.findByServiceUser(tenantId, ref);
  }

  findByExternalIdForUpdate(tenantId: string, externalId: string): Promise<MemberEntity | null> {
    return this.repo.findOne({
      where: { tenantId, externalId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /**
   * The member an approved application made for this email (docs/partners.md, "Applications"),
   * while it still has the application id as its `external_id`, locked; null when there is none.
   */
  findApplicantForUpdate(tenantId: string, email: string): Promise<MemberEntity | null> {
    return this.repo
      .createQueryBuilder('m')
      .setLock('pessimistic_write')
      .where('m.tenant_id = :tenantId AND lower(m.email) = :email', {
        tenantId,
        email: email.toLowerCase(),
      })
      .andWhere(`m.external_id ~ '^apl_[0-9A-HJKMNP-TV-Z]{26}$'`)
      .orderBy('m.created_at', 'ASC')
      .getOne();
  }

  /**
   * Walks up from `memberId` through `referrer_member_id`, at most `count` members: each step is a
   * primary-key probe, so the cost follows the number of tiers, not the depth of the network.
   */
  async upline(tenantId: string, memberId: string, count: number): Promise<UplineMember[]> {
    const rows: { id: string; service_user_id: string; is_active: boolean }[] =
      await this.tx.manager.query(
        `WITH RECURSIVE chain AS (
           SELECT id, service_user_id, is_active, referrer_member_id, 1 AS position
             FROM members WHERE tenant_id = $1 AND id = $2
           UNION ALL
           SELECT m.id, m.service_user_id, m.is_active, m.referrer_member_id, chain.position + 1
             FROM chain JOIN members m ON m.tenant_id = $1 AND m.id = chain.referrer_member_id
            WHERE chain.position < $3)
         SELECT id, service_user_id, is_active FROM chain ORDER BY position`,
        [tenantId, memberId, count],
      );
    return rows.map((r) => ({ id: r.id, serviceUserId: r.service_user_id, isActive: r.is_active }));
  }

  /** Inserts unless the external id exists (a concurrent upsert won); `false` then. */
  async insertIfAbsent(member: MemberEntity): Promise<boolean> {
    const result = await this.repo
      .createQueryBuilder()
      .insert()
      .values(member)
      .orIgnore('ON CONSTRAINT uq_members_external_id')
      .returning(['id'])
      .execute();
    return result.raw.length === 1;
  }

  async update(member: MemberEntity, changes: Partial<MemberEntity>): Promise<void> {
    await this.repo.update({ tenantId: member.tenantId, id: member.id }, changes);
  }

  /**
   * Hangs the tree rooted at `root` (a member with no referrer) under `referrer`: every member of
   * that tree moves `referrer.depth + 1` levels down and takes the referrer's root. One statement
   * through `ix_members_root`; the caller holds the tenant's tree lock.
   */
  async attachTree(root: MemberEntity, referrer: MemberEntity): Promise<void> {
    const shift = referrer.depth + 1;
    await this.tx.manager.query(
      `UPDATE members
          SET depth = depth + $3, deepest_depth = deepest_depth + $3, root_member_id = $4,
              updated_at = now()
        WHERE tenant_id = $1 AND root_member_id = $2`,
      [root.tenantId, root.id, shift, referrer.rootMemberId],
    );
    await this.repo.update(
      { tenantId: root.tenantId, id: root.id },
      { referrerMemberId: referrer.id },
    );
    await this.growUpline(
      root.tenantId,
      referrer.id,
      root.downlineCount + 1,
      root.deepestDepth + shift,
    );
  }

  /**
   * Keeps the network counters current: `from` and each of its uplines gain `members` in their
   * downline, and their deepest descendant is at least `deepestDepth`. One statement walking the
   * upline by primary key; the caller holds the tenant's tree lock.
   */
  async growUpline(
    tenantId: string,
    from: string,
    members: number,
    deepestDepth: number,
  ): Promise<void> {
    await this.tx.manager.query(
      `WITH RECURSIVE up AS (
         SELECT id, referrer_member_id FROM members WHERE tenant_id = $1 AND id = $2
         UNION ALL
         SELECT m.id, m.referrer_member_id FROM up
           JOIN members m ON m.tenant_id = $1 AND m.id = up.referrer_member_id)
       UPDATE members SET downline_count = downline_count + $3,
                          deepest_depth = greatest(deepest_depth, $4)
        WHERE tenant_id = $1 AND id IN (SELECT id FROM up)`,
      [tenantId, from, members, deepestDepth],
    );
  }

  /**
   * The next tree level: the children of `parentIds`, in joining order (then id), at most `limit`
   * (TREE_LEVEL_SQL).
   */
  async childrenOf(tenantId: string, parentIds: string[], limit: number): Promise<TreeMember[]> {
    const [sql, parents] =
      parentIds.length === 1
        ? [TREE_LEVEL_SQL.oneParent, parentIds[0]]
        : [TREE_LEVEL_SQL.parents, parentIds];
    const rows: {
      id: string;
      referrer_member_id: string;
      full_name: string | null;
      role: MemberEntity['role'];
      depth: number;
      downline_count: number;
    }[] = await this.tx.select(sql, [tenantId, parents, limit]);
    return rows.map((r) => ({
      id: r.id,
      referrerMemberId: r.referrer_member_id,
      fullName: r.full_name,
      role: r.role,
      depth: r.depth,
      downlineCount: r.downline_count,
    }));
  }

  /** A member's first line, newest first, and its size. */
  async directReferrals(
    tenantId: string,
    memberId: string,
    offset: number,
    limit: number,
  ): Promise<[MemberEntity[], number]> {
    const rows: Record<string, unknown>[] = await this.tx.select(
      `SELECT ${this.rows.select('m')} FROM members m
        WHERE m.tenant_id = $1 AND m.referrer_member_id = $2
        ORDER BY m.created_at DESC, m.id DESC OFFSET $3 LIMIT $4`,
      [tenantId, memberId, offset, limit],
    );
    const total = await pageTotal(rows.length, offset, limit, () =>
      this.tx.select(
        `SELECT count(*)::int AS count FROM members WHERE tenant_id = $1 AND referrer_member_id = $2`,
        [tenantId, memberId],
      ),
    );
    return [this.rows.fromAll(rows), total];
  }

  /**
   * Serialises changes to the shape of one tenant's referral network (until the transaction
   * ends), so that a cycle check and the move it guards see the same tree, in every process.
   */
  async lockTree(tenantId: string): Promise<void> {
    await this.tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext('referral-tree:' || $1))`, [
      tenantId,
    ]);
  }

  /**
   * A ban and the registrations that pay members exclude each other (docs/fraud.md, "Bans"): a ban
   * takes this lock exclusively, a lead or a conversion takes it shared before it reads who is
   * active. So a ban waits for those in flight and then rejects their pending bonuses, and those
   * that start later see the member banned. Held until the transaction ends.
   */
  async lockBans(tenantId: string, mode: 'shared' | 'exclusive'): Promise<void> {
    const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
    await this.tx.manager.query(`SELECT ${lock}(hashtext('member-bans:' || $1))`, [tenantId]);
  }

  /**
   * Activates or deactivates the member; null for an unknown member, and `'banned'` when asked to
   * activate a banned one (only lifting the ban does that, docs/fraud.md "Bans"). One statement,
   * so a ban committed meanwhile is seen.
   */
  async setActive(
    tenantId: string,
    memberId: string,
    isActive: boolean,
  ): Promise<MemberEntity | 'banned' | 'erased' | null> {
    const [rows]: [Record<string, unknown>[], number] = await this.tx.manager.query(
      `UPDATE members SET is_active = $3, updated_at = now()
        WHERE tenant_id = $1 AND id = $2 AND (NOT $3 OR (banned_at IS NULL AND erased_at IS NULL))
       RETURNING *`,
      [tenantId, memberId, isActive],
    );
    if (rows.length) return this.rows.from(rows[0]);
    const found = await this.findById(tenantId, memberId);
    return found ? (found.erasedAt ? 'erased' : 'banned') : null;
  }

  /**
   * docs/privacy.md: the member's personal fields cleared, the member deactivated and marked
   * erased, in one statement that touches this row only (ids, tree position, counters and group
   * stay); null when the member was erased before. The `external_id` may be personal (an email,
   * a phone) and is replaced by one made of the member id.
   */
  async erase(tenantId: string, memberId: string): Promise<Date | null> {
    const [rows]: [{ erased_at: Date }[], number] = await this.tx.manager.query(
      `UPDATE members
          SET email = NULL, email_verified = false, vk_id = NULL, full_name = NULL,
              last_seen_ip = NULL, external_id = 'erased:' || id, is_active = false,
              ban_reason = CASE WHEN ban_reason IS NULL THEN NULL ELSE $3 END,
              erased_at = now(), updated_at = now()
        WHERE tenant_id = $1 AND id = $2 AND erased_at IS NULL
       RETURNING erased_at`,
      [tenantId, memberId, ERASED],
    );
    return rows[0]?.erased_at ?? null;
  }

  /** Whether a member of any tenant not erased still stands on this service user. */
  async serviceUserInUse(serviceUserId: string): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `SELECT 1 FROM members WHERE service_user_id = $1 AND erased_at IS NULL LIMIT 1`,
      [serviceUserId],
    );
    return rows.length > 0;
  }

  /** docs/fraud.md: the member's last `client.ip`. */
  async setLastSeenIp(tenantId: string, memberId: string, ip: string): Promise<void> {
    await this.tx.manager.query(
      `UPDATE members SET last_seen_ip = $3::inet WHERE tenant_id = $1 AND id = $2`,
      [tenantId, memberId, ip],
    );
  }

  /**
   * docs/fraud.md: bans (deactivates, with the time and reason) or lifts the ban (activates);
   * null for an unknown member.
   */
  async setBan(
    tenantId: string,
    memberId: string,
    ban: { reason: string } | null,
  ): Promise<MemberEntity | null> {
    const [rows]: [Record<string, unknown>[], number] = await this.tx.manager.query(
      `UPDATE members
          SET is_active = $3, banned_at = CASE WHEN $3 THEN NULL ELSE now() END,
              ban_reason = $4, updated_at = now()
        WHERE tenant_id = $1 AND id = $2
       RETURNING *`,
      [tenantId, memberId, ban === null, ban?.reason ?? null],
    );
    return rows.length ? this.rows.from(rows[0]) : null;
  }

  /** Adds clicks on their short links to members' clicks_count, summed per member first. */
  async addClicks(clicks: { tenantId: string; memberId: string; count: number }[]): Promise<void> {
    await this.tx.manager.query(
      `UPDATE members m SET clicks_count = m.clicks_count + s.n
         FROM (SELECT tenant_id, member_id, sum(n)::int AS n
                 FROM unnest($1::text[], $2::text[], $3::int[]) AS c (tenant_id, member_id, n)
                GROUP BY 1, 2) s
        WHERE m.tenant_id = s.tenant_id AND m.id = s.member_id`,
      [clicks.map((c) => c.tenantId), clicks.map((c) => c.memberId), clicks.map((c) => c.count)],
    );
  }

  /** docs/privacy.md: erased values inside ban reasons (a reason naming someone). */
  @PersonalData('redact', 'members')
  redactPersonal(tenantId: string, values: string[]): Promise<number> {
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'members',
      key: ['tenant_id', 'id'],
      columns: { ban_reason: 'text' },
    });
  }

  /** docs/privacy.md: the member's own fields and their service user's, as held. */
  @PersonalData('export', 'profile')
  async exportPersonal(tenantId: string, memberId: string): Promise<Record<string, unknown>> {
    const [row]: Record<string, unknown>[] = await this.tx.manager.query(
      `SELECT m.id AS user_id, m.service_user_id, m.external_id, m.email, m.email_verified,
              m.full_name, m.vk_id, host(m.last_seen_ip) AS last_seen_ip, m.role, m.is_active,
              m.ban_reason, m.created_at AS joined_at, m.erased_at,
              s.verified_email AS service_user_email, s.vk_id AS service_user_vk_id
         FROM members m JOIN service_users s ON s.id = m.service_user_id
        WHERE m.tenant_id = $1 AND m.id = $2`,
      [tenantId, memberId],
    );
    return { profile: row ?? null };
  }
}
