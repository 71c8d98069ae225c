import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { pageTotal } from '../database/entity-rows';
import { TransactionHost } from '../database/transaction-host';
import { GroupEntity } from './group.entity';

/** Partner groups; every method takes the tenant id first. */
@Injectable()
export class GroupsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(GroupEntity);
  }

  find(tenantId: string, groupId: string): Promise<GroupEntity | null> {
    return this.repo.findOneBy({ tenantId, id: groupId });
  }

  findBySlug(tenantId: string, slug: string): Promise<GroupEntity | null> {
    return this.repo.findOneBy({ tenantId, slug });
  }

  /** The ids of the tenant's groups with these slugs (those that exist). */
  async idsBySlugs(tenantId: string, slugs: string[]): Promise<{ slug: string; id: string }[]> {
    return this.tx.select(
      `SELECT slug, id FROM groups WHERE tenant_id = $1 AND slug = ANY($2::text[])`,
      [tenantId, slugs],
    );
  }

  /** The group slugs an import's staged rows name (transfer/'s staging table, on its connection). */
  async slugsOfFile(client: PoolClient, staging: string): Promise<string[]> {
    const { rows } = await client.query<{ slug: string }>(
      `SELECT DISTINCT group_slug AS slug FROM ${staging} WHERE group_slug IS NOT NULL`,
    );
    return rows.map((r) => r.slug);
  }

  /** The program of one group (null: it has none, or there is no such group). */
  async programOf(tenantId: string, groupId: string): Promise<unknown> {
    const [row]: { program: unknown }[] = await this.tx.select(
      `SELECT program FROM groups WHERE tenant_id = $1 AND id = $2`,
      [tenantId, groupId],
    );
    return row?.program ?? null;
  }

  /** A page of the tenant's groups, newest first, and how many there are. */
  async list(tenantId: string, offset: number, limit: number): Promise<[GroupEntity[], number]> {
    const rows = await this.repo.find({
      where: { tenantId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
    const total = await pageTotal(rows.length, offset, limit, () =>
      this.tx.select(`SELECT count(*)::int AS count FROM groups WHERE tenant_id = $1`, [tenantId]),
    );
    return [rows, total];
  }

  /** Every group's promotion target (group id → the group it promotes to). */
  async promotions(tenantId: string): Promise<Map<string, string>> {
    const rows: { id: string; target: string }[] = await this.tx.manager.query(
      `SELECT id, promote_to ->> 'group_id' AS target FROM groups
        WHERE tenant_id = $1 AND promote_to IS NOT NULL`,
      [tenantId],
    );
    return new Map(rows.map((r) => [r.id, r.target]));
  }

  /**
   * Serialises changes of a tenant's promotions (until the transaction ends), so that two changes
   * made at once cannot close a loop that neither sees alone.
   */
  async lockPromotions(tenantId: string): Promise<void> {
    await this.tx.manager.query(
      `SELECT pg_advisory_xact_lock(hashtext('group-promotions:' || $1))`,
      [tenantId],
    );
  }

  async insert(group: GroupEntity): Promise<void> {
    await this.repo.insert(group);
  }

  /** Writes the changed fields; false when there is no such group. */
  async update(
    tenantId: string,
    groupId: string,
    changes: Partial<
      Pick<GroupEntity, 'name' | 'program' | 'programVersionId' | 'signup' | 'promoteTo'>
    >,
  ): Promise<boolean> {
    const result = await this.repo.update(
      { tenantId, id: groupId },
      { ...changes, updatedAt: new Date() },
    );
    return (result.affected ?? 0) > 0;
  }
}
