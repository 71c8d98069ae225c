import { Injectable } from '@nestjs/common';
import { pageTotal } from '../database/entity-rows';
import { TransactionHost } from '../database/transaction-host';
import { type Span, splitPeriod } from './bounty-period';
import { BountyAwardEntity, BountyEntity } from './bounty.entity';
import type { ProgressRow } from './dto/bounty.response';

/**
 * Bounties and their awards; every method takes the tenant id first. Progress is read, never
 * written: whole UTC days from `personal_sales_daily` (the PersonalSales migration's rollup) and
 * the parts of days at the period's ends from the conversions themselves (docs/money.md,
 * "Bounties").
 */
@Injectable()
export class BountiesRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(BountyEntity);
  }

  find(tenantId: string, bountyId: string): Promise<BountyEntity | null> {
    return this.repo.findOneBy({ tenantId, id: bountyId });
  }

  async insert(bounty: BountyEntity): Promise<void> {
    await this.repo.insert(bounty);
  }

  async update(
    tenantId: string,
    bountyId: string,
    changes: Partial<Pick<BountyEntity, 'name' | 'endsAt'>>,
  ): Promise<void> {
    await this.repo.update({ tenantId, id: bountyId }, { ...changes, updatedAt: new Date() });
  }

  /** A page of the tenant's bounties, newest first, and how many there are. */
  async list(tenantId: string, offset: number, limit: number): Promise<[BountyEntity[], number]> {
    const rows = await this.repo.find({
      where: { tenantId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
    const total = await pageTotal(rows.length, offset, limit, () =>
      this.tx.select(`SELECT count(*)::int AS count FROM bounties WHERE tenant_id = $1`, [
        tenantId,
      ]),
    );
    return [rows, total];
  }

  /** How many partners reached each of these bounties. */
  async reachedCounts(tenantId: string, bountyIds: string[]): Promise<Map<string, number>> {
    if (!bountyIds.length) return new Map();
    const rows: { bounty_id: string; count: number }[] = await this.tx.select(
      `SELECT bounty_id, count(*)::int AS count FROM bounty_awards
        WHERE tenant_id = $1 AND bounty_id = ANY($2::text[]) GROUP BY bounty_id`,
      [tenantId, bountyIds],
    );
    return new Map(rows.map((r) => [r.bounty_id, r.count]));
  }

  /** The bounties running at `at`: the one query a conversion of a tenant without any pays. */
  running(tenantId: string, at: Date): Promise<BountyEntity[]> {
    return this.tx.manager
      .getRepository(BountyEntity)
      .createQueryBuilder('b')
      .where('b.tenant_id = :tenantId AND b.starts_at <= :at', { tenantId, at })
      .andWhere('(b.ends_at IS NULL OR b.ends_at > :at)', { at })
      .orderBy('b.created_at')
      .addOrderBy('b.id')
      .getMany();
  }

  /**
   * The bounties a member of `groupId` sees in the portal: those of their group (or of every
   * partner) running at `at`, and any they reached, newest first.
   */
  forMember(
    tenantId: string,
    memberId: string,
    groupId: string | null,
    at: Date,
    limit: number,
  ): Promise<BountyEntity[]> {
    return this.repo
      .createQueryBuilder('b')
      .where('b.tenant_id = :tenantId', { tenantId })
      .andWhere(
        `((b.starts_at <= :at AND (b.ends_at IS NULL OR b.ends_at > :at)
           AND (b.group_id IS NULL OR b.group_id = :groupId))
          OR EXISTS (SELECT 1 FROM bounty_awards a WHERE a.tenant_id = b.tenant_id
                      AND a.bounty_id = b.id AND a.member_id = :memberId))`,
        { at, groupId, memberId },
      )
      .orderBy('b.starts_at', 'DESC')
      .addOrderBy('b.id', 'DESC')
      .take(limit)
      .getMany();
  }

  /** The member's awards of these bounties. */
  awardsOf(tenantId: string, memberId: string, bountyIds: string[]): Promise<BountyAwardEntity[]> {
    if (!bountyIds.length) return Promise.resolve([]);
    return this.tx.manager
      .getRepository(BountyAwardEntity)
      .createQueryBuilder('a')
      .where('a.tenant_id = :tenantId AND a.member_id = :memberId', { tenantId, memberId })
      .andWhere('a.bounty_id IN (:...bountyIds)', { bountyIds })
      .getMany();
  }

  /**
   * Serialises the bounty checks of one member's conversions until the transaction ends: each
   * check then counts every conversion of the member committed before it, so the last of many
   * concurrent conversions sees them all and none crosses the threshold unseen. Taken after the
   * conversion's own bonuses (their balance rows): a bounty bonus in another currency than the
   * conversion's may meet another conversion's balance row in the other order, and PostgreSQL's
   * deadlock answer is retried by TransactionHost.
   */
  async lockMember(tenantId: string, memberId: string): Promise<void> {
    await this.tx.manager.query(
      `SELECT pg_advisory_xact_lock(hashtext('bounties:' || $1::text || ':' || $2::text))`,
      [tenantId, memberId],
    );
  }

  /** Claims the award; false when the member already has it (the primary key settles races). */
  async insertAward(award: BountyAwardEntity): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `INSERT INTO bounty_awards (tenant_id, bounty_id, member_id, bonus_id, value, reached_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (tenant_id, bounty_id, member_id) DO NOTHING RETURNING bounty_id`,
      [award.tenantId, award.bountyId, award.memberId, award.bonusId, award.value, award.reachedAt],
    );
    return rows.length > 0;
  }

  async setAwardBonus(
    tenantId: string,
    bountyId: string,
    memberId: string,
    bonusId: string,
  ): Promise<void> {
    await this.tx.manager.query(
      `UPDATE bounty_awards SET bonus_id = $4
        WHERE tenant_id = $1 AND bounty_id = $2 AND member_id = $3`,
      [tenantId, bountyId, memberId, bonusId],
    );
  }

  /** One member's progress towards the bounty: conversions, or revenue in its currency. */
  async progressOf(tenantId: string, memberId: string, bounty: BountyEntity): Promise<number> {
    const { days, edges } = splitPeriod(bounty.startsAt, bounty.endsAt);
    const params: unknown[] = [tenantId, memberId];
    const value = valueOf(bounty, params);
    const parts: string[] = [];
    if (days) {
      parts.push(`SELECT ${value.days} AS v FROM personal_sales_daily
                   WHERE tenant_id = $1 AND member_id = $2 AND ${dayRange(days, params)}`);
    }
    if (edges.length) {
      parts.push(`SELECT ${value.conversions} AS v
                    FROM conversions c JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
                   WHERE c.tenant_id = $1 AND l.referrer_member_id = $2 AND c.status <> 'reversed'
                     AND (${spans(edges, params)})`);
    }
    const [row]: { value: string }[] = await this.tx.select(
      `SELECT coalesce(sum(v), 0)::text AS value FROM (${parts.join(' UNION ALL ')}) p`,
      params,
    );
    return Number(row.value);
  }

  /**
   * A page of the partners' progress towards the bounty, furthest first: those of its group (or
   * any) with some progress, and everyone who reached it whatever their progress or group now.
   */
  async progress(
    tenantId: string,
    bounty: BountyEntity,
    offset: number,
    limit: number,
  ): Promise<{ rows: ProgressRow[]; total: number }> {
    const { days, edges } = splitPeriod(bounty.startsAt, bounty.endsAt);
    const params: unknown[] = [tenantId, bounty.id, bounty.groupId, offset, limit];
    const value = valueOf(bounty, params);
    const parts: string[] = ['SELECT NULL::text AS member_id, 0::numeric AS v WHERE false'];
    if (days) {
      parts.push(`SELECT member_id, ${value.days} FROM personal_sales_daily
                   WHERE tenant_id = $1 AND ${dayRange(days, params)} GROUP BY member_id`);
    }
    if (edges.length) {
      parts.push(`SELECT l.referrer_member_id, ${value.conversions}
                    FROM conversions c JOIN leads l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id
                   WHERE c.tenant_id = $1 AND c.status <> 'reversed'
                     AND l.referrer_member_id IS NOT NULL AND (${spans(edges, params)})
                   GROUP BY 1`);
    }
    const [row]: { total: number; items: ProgressRow[] | null }[] = await this.tx.select(
      `WITH sales AS (${parts.join(' UNION ALL ')}),
            totals AS (SELECT member_id, sum(v) AS value FROM sales GROUP BY member_id),
            awards AS (SELECT * FROM bounty_awards WHERE tenant_id = $1 AND bounty_id = $2),
            rows AS (
              SELECT m.id AS member_id, m.service_user_id AS user_id, m.full_name,
                     coalesce(t.value, 0) AS value, a.bonus_id, a.reached_at
                FROM totals t FULL JOIN awards a ON a.member_id = t.member_id
                JOIN members m ON m.tenant_id = $1 AND m.id = coalesce(t.member_id, a.member_id)
               WHERE a.member_id IS NOT NULL
                  OR (t.value > 0 AND ($3::text IS NULL OR m.group_id = $3::text)))
       SELECT (SELECT count(*)::int FROM rows) AS total,
              (SELECT json_agg(json_build_object(
                        'member_id', member_id, 'user_id', user_id, 'full_name', full_name,
                        'value', value::text, 'bonus_id', bonus_id,
                        'reached_at', to_char(reached_at AT TIME ZONE 'UTC',
                                              'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                        ORDER BY value DESC, user_id)
                 FROM (SELECT * FROM rows ORDER BY value DESC, user_id OFFSET $4 LIMIT $5) p)
                AS items`,
      params,
    );
    return {
      total: row.total,
      rows: (row.items ?? []).map((r) => ({ ...r, value: Number(r.value) })),
    };
  }
}

/** What a bounty counts, over the rollup's rows and over conversions (its currency in `params`). */
function valueOf(bounty: BountyEntity, params: unknown[]): { days: string; conversions: string } {
  if (bounty.metric === 'conversions') {
    return { days: 'coalesce(sum(conversions), 0)', conversions: 'count(*)' };
  }
  params.push(bounty.currency);
  const currency = `$${params.length}::char(3)`;
  return {
    days: `coalesce(sum(amount_kopecks) FILTER (WHERE currency = ${currency}), 0)`,
    conversions: `coalesce(sum(c.amount_kopecks) FILTER (WHERE c.currency = ${currency}), 0)`,
  };
}

/** `day` within the whole days, their bounds appended to `params`. */
function dayRange(days: { from: string; to: string | null }, params: unknown[]): string {
  params.push(days.from);
  const from = `day >= $${params.length}::date`;
  if (days.to === null) return from;
  params.push(days.to);
  return `${from} AND day < $${params.length}::date`;
}

/** `c.created_at` within any of the spans, their bounds appended to `params`. */
function spans(edges: Span[], params: unknown[]): string {
  return edges
    .map((e) => {
      params.push(e.from, e.to);
      return `(c.created_at >= $${params.length - 1}::timestamptz AND c.created_at < $${params.length}::timestamptz)`;
    })
    .join(' OR ');
}
