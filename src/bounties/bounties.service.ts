import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { BonusesService } from '../bonuses/bonuses.service';
import type { Actor } from '../common/access/actor';
import { type FieldError, ValidationFailedError } from '../common/errors/domain-error';
import { parseInstant } from '../common/http/instant';
import { offsetOf, pagination, type PageQueryDto } from '../common/http/pagination.dto';
import { newId } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import { GroupsService } from '../groups/groups.service';
import { MembersService } from '../members/members.service';
import { EventsService } from '../outbox/events.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { BountiesRepository } from './bounties.repository';
import type { BountyEntity } from './bounty.entity';
import { BountyNotFoundError } from './bounty.errors';
import type { CreateBountyDto, UpdateBountyDto } from './dto/bounty-requests.dto';
import type {
  BountyListResponse,
  BountyProgressResponse,
  BountyResponse,
} from './dto/bounty.response';

/** A bounty as a partner sees it in the portal. */
export interface MemberBounty {
  bounty: BountyEntity;
  value: number;
  reachedAt: Date | null;
}

/**
 * Bounties (docs/money.md, "Bounties"): the admin routes, and the check after each conversion that
 * pays a partner who crosses a running bounty's threshold its bonus, once per partner and bounty.
 */
@Injectable()
export class BountiesService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly bounties: BountiesRepository,
    private readonly groups: GroupsService,
    private readonly members: MembersService,
    private readonly bonuses: BonusesService,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  async create(tenantId: string, dto: CreateBountyDto, actor: Actor): Promise<BountyResponse> {
    const startsAt = parseInstant(dto.starts_at)!;
    const endsAt = dto.ends_at === undefined ? null : parseInstant(dto.ends_at)!;
    throwIfAny(periodErrors(startsAt, endsAt));
    return this.tx.transaction(async () => {
      if (dto.group_id) await this.groups.get(tenantId, dto.group_id);
      const now = new Date();
      const bounty: BountyEntity = {
        tenantId,
        id: newId('bounty'),
        name: dto.name,
        groupId: dto.group_id ?? null,
        metric: dto.metric,
        threshold: dto.threshold,
        amountKopecks: dto.amount_kopecks,
        currency: dto.currency,
        startsAt,
        endsAt,
        createdAt: now,
        updatedAt: now,
      };
      await this.bounties.insert(bounty);
      await this.audit.record(
        tenantId,
        actor,
        'bounty.created',
        { type: 'bounty', id: bounty.id },
        { name: bounty.name, threshold: bounty.threshold, amount_kopecks: bounty.amountKopecks },
      );
      return toResponse(bounty, 0);
    });
  }

  /** Renames a bounty or moves its end (null: open-ended); awards already made stay. */
  async update(
    tenantId: string,
    bountyId: string,
    dto: UpdateBountyDto,
    actor: Actor,
  ): Promise<BountyResponse> {
    return this.tx.transaction(async () => {
      const bounty = await this.get(tenantId, bountyId);
      const changes: Partial<Pick<BountyEntity, 'name' | 'endsAt'>> = {};
      if (dto.name !== undefined) changes.name = dto.name;
      if (dto.ends_at !== undefined) {
        changes.endsAt = dto.ends_at === null ? null : parseInstant(dto.ends_at)!;
        throwIfAny(periodErrors(bounty.startsAt, changes.endsAt));
      }
      await this.bounties.update(tenantId, bountyId, changes);
      await this.audit.record(
        tenantId,
        actor,
        'bounty.updated',
        { type: 'bounty', id: bountyId },
        { fields: Object.keys(dto).sort() },
      );
      const counts = await this.bounties.reachedCounts(tenantId, [bountyId]);
      return toResponse({ ...bounty, ...changes }, counts.get(bountyId) ?? 0);
    });
  }

  async list(tenantId: string, query: PageQueryDto): Promise<BountyListResponse> {
    const [rows, total] = await this.bounties.list(tenantId, offsetOf(query), query.page_size);
    const counts = await this.bounties.reachedCounts(
      tenantId,
      rows.map((b) => b.id),
    );
    return {
      items: rows.map((b) => toResponse(b, counts.get(b.id) ?? 0)),
      pagination: pagination(query, total),
    };
  }

  async getResponse(tenantId: string, bountyId: string): Promise<BountyResponse> {
    const bounty = await this.get(tenantId, bountyId);
    const counts = await this.bounties.reachedCounts(tenantId, [bountyId]);
    return toResponse(bounty, counts.get(bountyId) ?? 0);
  }

  /** The partners' progress, furthest first (docs/money.md, "Bounties"), with names for pages. */
  async progressPage(tenantId: string, bountyId: string, query: PageQueryDto) {
    const bounty = await this.get(tenantId, bountyId);
    const { rows, total } = await this.bounties.progress(
      tenantId,
      bounty,
      offsetOf(query),
      query.page_size,
    );
    return { bounty, rows, total };
  }

  async progress(
    tenantId: string,
    bountyId: string,
    query: PageQueryDto,
  ): Promise<BountyProgressResponse> {
    const { bounty, rows, total } = await this.progressPage(tenantId, bountyId, query);
    return {
      bounty_id: bounty.id,
      items: rows.map((r) => ({
        user_id: r.user_id,
        value: r.value,
        threshold: bounty.threshold,
        reached: r.reached_at !== null,
        reached_at: r.reached_at,
        bonus_id: r.bonus_id,
      })),
      pagination: pagination(query, total),
    };
  }

  /** The bounties a partner sees (their group's or everyone's running now, and those they reached). */
  async forMember(tenantId: string, memberId: string, limit = 10): Promise<MemberBounty[]> {
    const member = await this.members.findMember(tenantId, memberId);
    if (!member) return [];
    const list = await this.bounties.forMember(
      tenantId,
      memberId,
      member.groupId ?? null,
      new Date(),
      limit,
    );
    const awards = new Map(
      (
        await this.bounties.awardsOf(
          tenantId,
          memberId,
          list.map((b) => b.id),
        )
      ).map((a) => [a.bountyId, a]),
    );
    return Promise.all(
      list.map(async (bounty) => ({
        bounty,
        value: await this.bounties.progressOf(tenantId, memberId, bounty),
        reachedAt: awards.get(bounty.id)?.reachedAt ?? null,
      })),
    );
  }

  /**
   * After a conversion referred by `memberId` (in its transaction, the conversion written): pays
   * each bounty running `at` that applies to the member and that they now reach, once. A tenant
   * without running bounties pays one indexed query; a member who has them all, one more.
   */
  async afterConversion(tenant: TenantEntity, memberId: string, at: Date): Promise<void> {
    const running = await this.bounties.running(tenant.id, at);
    if (!running.length) return;
    const member = await this.members.findMember(tenant.id, memberId);
    if (!member) return;
    const applying = running.filter((b) => b.groupId === null || b.groupId === member.groupId);
    const awarded = new Set(
      (
        await this.bounties.awardsOf(
          tenant.id,
          memberId,
          applying.map((b) => b.id),
        )
      ).map((a) => a.bountyId),
    );
    const open = applying.filter((b) => !awarded.has(b.id));
    if (!open.length) return;
    await this.bounties.lockMember(tenant.id, memberId);
    for (const bounty of open) {
      const value = await this.bounties.progressOf(tenant.id, memberId, bounty);
      if (value < bounty.threshold) continue;
      const award = { tenantId: tenant.id, bountyId: bounty.id, memberId, value, reachedAt: at };
      if (!(await this.bounties.insertAward({ ...award, bonusId: null }))) continue;
      let bonusId: string | null = null;
      if (bounty.amountKopecks > 0) {
        const [bonus] = await this.bonuses.accrue(tenant.id, [
          {
            memberId,
            serviceUserId: member.serviceUserId,
            amountKopecks: bounty.amountKopecks,
            currency: bounty.currency,
            sourceType: 'bounty',
            sourceId: bounty.id,
            tier: null,
            gracePeriodHours: tenant.program.grace_period_hours,
          },
        ]);
        bonusId = bonus.id;
        await this.bounties.setAwardBonus(tenant.id, bounty.id, memberId, bonusId);
      }
      await this.events.emit(tenant.id, 'bounty.reached', {
        bounty_id: bounty.id,
        user_id: member.serviceUserId,
        bonus_id: bonusId,
        value,
        threshold: bounty.threshold,
      });
    }
  }

  private async get(tenantId: string, bountyId: string): Promise<BountyEntity> {
    const bounty = await this.bounties.find(tenantId, bountyId);
    if (!bounty) throw new BountyNotFoundError(bountyId);
    return bounty;
  }
}

function periodErrors(startsAt: Date, endsAt: Date | null): FieldError[] {
  return endsAt && endsAt.getTime() <= startsAt.getTime()
    ? [{ field: 'ends_at', message: 'must be after starts_at' }]
    : [];
}

function throwIfAny(errors: FieldError[]): void {
  if (errors.length) throw new ValidationFailedError(errors);
}

function toResponse(bounty: BountyEntity, reachedCount: number): BountyResponse {
  return {
    bounty_id: bounty.id,
    name: bounty.name,
    group_id: bounty.groupId,
    metric: bounty.metric,
    threshold: bounty.threshold,
    amount_kopecks: bounty.amountKopecks,
    currency: bounty.currency,
    starts_at: bounty.startsAt.toISOString(),
    ends_at: bounty.endsAt?.toISOString() ?? null,
    reached_count: reachedCount,
    created_at: bounty.createdAt.toISOString(),
  };
}
