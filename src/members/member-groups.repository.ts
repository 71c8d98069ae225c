import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import type { UplineMember } from './members.repository';

/**
 * Members' groups (docs/partners.md): `members.group_id`, written here and by the import's bulk
 * writer only; every method takes the tenant id first.
 */
@Injectable()
export class MemberGroupsRepository {
  constructor(private readonly tx: TransactionHost) {}

  /**
   * The upline of `upline` (at most as many members as the paying program has tiers) and, in the
   * same statement, the program and the promotion of the first member's group (null: the group
   * has none). The
   * chain is as long as that program's tiers (the most of any of its phases), else `tenantTiers` (docs/partners.md, "Which
   * program pays"): one round trip, as the upline alone was.
   */
  async uplineWithGroupProgram(
    tenantId: string,
    memberId: string,
    tenantTiers: number,
  ): Promise<{
    groupProgram: unknown;
    groupVersionId: string | null;
    promoteTo: unknown;
    chain: UplineMember[];
  }> {
    const rows: {
      id: string;
      service_user_id: string;
      is_active: boolean;
      program: unknown;
      program_version_id: string | null;
      promote_to: unknown;
    }[] = await this.tx.manager.query(
      `WITH RECURSIVE paying AS (
         SELECT g.program, g.program_version_id, g.promote_to,
                coalesce(jsonb_array_length(g.program -> 'tiers'),
                         (SELECT max(jsonb_array_length(p -> 'tiers'))
                            FROM jsonb_array_elements(g.program -> 'phases') p)) AS depth
           FROM members m
           JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
          WHERE m.tenant_id = $1 AND m.id = $2),
       chain AS (
         SELECT id, service_user_id, is_active, referrer_member_id, 1 AS position
           FROM members WHERE tenant_id = $1 AND id = $2
         UNION ALL
         SELECT m.id, m.service_user_id, m.is_active, m.referrer_member_id, chain.position + 1
           FROM chain JOIN members m ON m.tenant_id = $1 AND m.id = chain.referrer_member_id
          WHERE chain.position <
                coalesce((SELECT depth FROM paying), $3))
       SELECT id, service_user_id, is_active, (SELECT program FROM paying) AS program,
              (SELECT program_version_id FROM paying) AS program_version_id,
              (SELECT promote_to FROM paying) AS promote_to
         FROM chain ORDER BY position`,
      [tenantId, memberId, tenantTiers],
    );
    return {
      groupProgram: rows[0]?.program ?? null,
      groupVersionId: rows[0]?.program_version_id ?? null,
      promoteTo: rows[0]?.promote_to ?? null,
      chain: rows.map((r) => ({
        id: r.id,
        serviceUserId: r.service_user_id,
        isActive: r.is_active,
      })),
    };
  }

  /** The promotion of the group `memberId` is in (null: none; docs/partners.md, "Promotion"). */
  async promotionOf(tenantId: string, memberId: string): Promise<unknown> {
    const [row]: { promote_to: unknown }[] = await this.tx.manager.query(
      `SELECT g.promote_to FROM members m
         JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
        WHERE m.tenant_id = $1 AND m.id = $2`,
      [tenantId, memberId],
    );
    return row?.promote_to ?? null;
  }

  /**
   * Moves the member to `groupId`; the group it was in, or null when it was already there (or
   * there is no such member). The row lock makes concurrent moves of one member take turns, each
   * seeing where the last one left it.
   */
  async setGroup(tenantId: string, memberId: string, groupId: string): Promise<string | null> {
    const [rows]: [{ from_group_id: string }[], number] = await this.tx.manager.query(
      `WITH old AS (SELECT id, group_id FROM members WHERE tenant_id = $1 AND id = $2 FOR UPDATE)
       UPDATE members m SET group_id = $3, updated_at = now()
         FROM old
        WHERE m.tenant_id = $1 AND m.id = old.id AND old.group_id <> $3
       RETURNING old.group_id AS from_group_id`,
      [tenantId, memberId, groupId],
    );
    return rows[0]?.from_group_id ?? null;
  }

  /** How many members each of the groups has (ix_members_group); absent groups have none. */
  async countByGroup(tenantId: string, groupIds: string[]): Promise<Map<string, number>> {
    const rows: { group_id: string; n: number }[] = await this.tx.select(
      `SELECT group_id, count(*)::int AS n FROM members
        WHERE tenant_id = $1 AND group_id = ANY($2::text[]) GROUP BY group_id`,
      [tenantId, groupIds],
    );
    return new Map(rows.map((r) => [r.group_id, r.n]));
  }
}
