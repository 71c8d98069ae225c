import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../common/access/actor';
import { type FieldError, ValidationFailedError } from '../common/errors/domain-error';
import { isUniqueViolation } from '../common/errors/pg-errors';
import { offsetOf, pagination, type PageQueryDto } from '../common/http/pagination.dto';
import { newId } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import { GROUP_MOVES_TABLE, type StagedGroups } from '../members/member-import.service';
import { MembersService, type UplineMember } from '../members/members.service';
import { EventsService } from '../outbox/events.service';
import { OffersService } from '../offers/offers.service';
import { ProgramVersionsService } from '../tenants/program-versions.service';
import { maxTierCount, type Program, withProgramDefaults } from '../tenants/program';
import type { TenantEntity } from '../tenants/tenant.entity';
import type { CreateGroupDto, UpdateGroupDto } from './dto/group-requests.dto';
import type { GroupListResponse, GroupResponse, MemberGroupResponse } from './dto/group.response';
import type { GroupEntity, PromoteTo } from './group.entity';
import { GroupNotFoundError, GroupSlugTakenError } from './group.errors';
import {
  promoteToErrors,
  promoteToOf,
  promotionLoops,
  signupErrors,
  withSignupDefaults,
} from './group-settings';
import { GroupsRepository } from './groups.repository';

/**
 * Partner groups (docs/partners.md): the admin routes, moving members between groups, and which
 * program pays a lead's bonuses (the offer's, else the referrer's group's, else the tenant's).
 */
@Injectable()
export class GroupsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly groups: GroupsRepository,
    private readonly members: MembersService,
    private readonly offers: OffersService,
    private readonly audit: AuditService,
    private readonly events: EventsService,
    private readonly versions: ProgramVersionsService,
  ) {}

  async create(tenantId: string, dto: CreateGroupDto, actor: Actor): Promise<GroupResponse> {
    throwIfAny([
      ...signupErrors(dto.signup ?? {}),
      ...(dto.promote_to ? promoteToErrors(dto.promote_to) : []),
    ]);
    try {
      return await this.tx.transaction(async () => {
        const now = new Date();
        const group: GroupEntity = {
          tenantId,
          id: newId('group'),
          slug: dto.slug,
          name: dto.name,
          program: dto.program ? withProgramDefaults(dto.program) : null,
          signup: withSignupDefaults(dto.signup),
          promoteTo: null,
          createdAt: now,
          updatedAt: now,
        };
        if (dto.promote_to) group.promoteTo = await this.checkedPromotion(group, dto.promote_to);
        if (group.program) {
          group.programVersionId = await this.versions.record(
            tenantId,
            { type: 'group', id: group.id },
            group.program,
            actor,
          );
        }
        await this.groups.insert(group);
        await this.audit.record(
          tenantId,
          actor,
          'group.created',
          { type: 'group', id: group.id },
          { slug: group.slug },
        );
        return toResponse(group, 0);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'uq_groups_slug')) throw new GroupSlugTakenError(dto.slug);
      throw error;
    }
  }

  async list(tenantId: string, query: PageQueryDto): Promise<GroupListResponse> {
    const [groups, total] = await this.groups.list(tenantId, offsetOf(query), query.page_size);
    const counts = groups.length
      ? await this.members.countByGroup(
          tenantId,
          groups.map((g) => g.id),
        )
      : new Map<string, number>();
    return {
      items: groups.map((g) => toResponse(g, counts.get(g.id) ?? 0)),
      pagination: pagination(query, total),
    };
  }

  async get(tenantId: string, groupId: string): Promise<GroupResponse> {
    const group = await this.find(tenantId, groupId);
    return this.withCount(group);
  }

  /** Changes the fields given; `program` or `promote_to` null clears it. */
  async update(
    tenantId: string,
    groupId: string,
    dto: UpdateGroupDto,
    actor: Actor,
  ): Promise<GroupResponse> {
    throwIfAny([
      ...(dto.signup ? signupErrors(dto.signup) : []),
      ...(dto.promote_to ? promoteToErrors(dto.promote_to) : []),
    ]);
    return this.tx.transaction(async () => {
      const group = await this.find(tenantId, groupId);
      const changes: Parameters<GroupsRepository['update']>[2] = {};
      if (dto.name !== undefined) changes.name = dto.name;
      if (dto.program !== undefined) {
        changes.program = dto.program === null ? null : withProgramDefaults(dto.program);
        changes.programVersionId = await this.versions.record(
          tenantId,
          { type: 'group', id: groupId },
          changes.program,
          actor,
        );
      }
      if (dto.signup !== undefined) changes.signup = withSignupDefaults(dto.signup);
      if (dto.promote_to !== undefined) {
        changes.promoteTo =
          dto.promote_to === null ? null : await this.checkedPromotion(group, dto.promote_to);
      }
      await this.groups.update(tenantId, groupId, changes);
      await this.audit.record(
        tenantId,
        actor,
        'group.updated',
        { type: 'group', id: groupId },
        { fields: Object.keys(dto).sort() },
      );
      return this.withCount({ ...group, ...changes });
    });
  }

  /**
   * Moves a member to one of the tenant's groups (`partner.group_changed`, reason `manual`, and an
   * audit entry); a move to the group the member is in changes nothing.
   */
  moveMember(
    tenantId: string,
    userRef: string,
    groupId: string,
    actor: Actor,
  ): Promise<MemberGroupResponse> {
    return this.tx.transaction(async () => {
      await this.find(tenantId, groupId);
      const moved = await this.members.setGroup(tenantId, userRef, groupId, 'manual');
      const { member, fromGroupId } = moved;
      if (fromGroupId !== null) {
        await this.audit.record(
          tenantId,
          actor,
          'user.group_changed',
          { type: 'user', id: member.id },
          { from_group_id: fromGroupId, to_group_id: groupId },
        );
      }
      return { user_id: member.id, group_id: groupId };
    });
  }

  /**
   * The program that pays a conversion of the lead, and the chain it pays (docs/partners.md,
   * "Which program pays"): the offer's own program, else the program of the referrer's group,
   * else the tenant's. Without an offer program, the group's program and the chain come in one
   * statement, as the chain alone did.
   */
  async conversionProgram(
    tenant: TenantEntity,
    offerId: string | null,
    referrerMemberId: string,
  ): Promise<{
    program: Program;
    /** The `prv_…` of `program`, for the bonuses' `rule`. */
    versionId: string | null;
    chain: UplineMember[];
    promotion: PromoteTo | null;
  }> {
    const offer = offerId ? await this.offers.ownProgram(tenant.id, offerId) : null;
    if (offer) {
      const chain = await this.members.upline(
        tenant.id,
        referrerMemberId,
        maxTierCount(offer.program),
      );
      const promotion = (await this.members.groupPromotionOf(
        tenant.id,
        referrerMemberId,
      )) as PromoteTo | null;
      return { program: offer.program, versionId: offer.versionId, chain, promotion };
    }
    const { groupProgram, groupVersionId, promoteTo, chain } =
      await this.members.uplineWithGroupProgram(
        tenant.id,
        referrerMemberId,
        maxTierCount(tenant.program),
      );
    return {
      program: (groupProgram as Program | null) ?? tenant.program,
      versionId: groupProgram ? groupVersionId : (tenant.programVersionId ?? null),
      chain,
      promotion: promoteTo as PromoteTo | null,
    };
  }

  /**
   * Promotes the member to `groupId` (docs/partners.md, "Promotion": `partner.group_changed` with
   * reason `promotion`): the promotion of the group they are now in, for the next step, or
   * undefined when they were there already (a concurrent conversion promoted them first).
   */
  async promote(
    tenantId: string,
    memberId: string,
    groupId: string,
  ): Promise<{ next: PromoteTo | null } | undefined> {
    const { fromGroupId } = await this.members.setGroup(tenantId, memberId, groupId, 'promotion');
    if (fromGroupId === null) return undefined;
    return { next: (await this.groups.find(tenantId, groupId))?.promoteTo ?? null };
  }

  /** The program that pays a lead bonus to a referrer in `groupId` (the same order as above). */
  async leadProgram(
    tenant: TenantEntity,
    offerId: string | null,
    groupId: string | undefined,
  ): Promise<Program> {
    const offer = offerId ? await this.offers.ownProgram(tenant.id, offerId) : null;
    if (offer) return offer.program;
    const groupProgram = groupId ? await this.groups.programOf(tenant.id, groupId) : null;
    return (groupProgram as Program | null) ?? tenant.program;
  }

  /**
   * What an import (transfer/) needs of groups, on its own connection, inside its transaction:
   * the groups its staged rows (`group_slug`) name, resolved once per import, and then `moved`,
   * which writes the events of the members it moved (`count`, applyStaged's `groupMoves`) and
   * answers what to call once the import has committed.
   */
  async forImport(tenantId: string, client: PoolClient, staging: string) {
    return {
      staged: await this.stagedGroups(tenantId, await this.groups.slugsOfFile(client, staging)),
      moved: async (count: number): Promise<() => void> => {
        if (!count) return () => undefined;
        const written = await this.tx.onClient(client, () => this.importMoves(tenantId, count));
        return written.committed;
      },
    };
  }

  /**
   * The groups an import's rows name, once per import (docs/partners.md): those of the tenant,
   * with the `default` group's id for the rows that name none. An unknown slug is left out (its
   * rows are errors of the import).
   */
  async stagedGroups(tenantId: string, slugs: string[]): Promise<StagedGroups> {
    const found = await this.groups.idsBySlugs(tenantId, [...slugs, 'default']);
    return {
      defaultId: found.find((g) => g.slug === 'default')!.id,
      slugs: found.map((g) => g.slug),
      ids: found.map((g) => g.id),
    };
  }

  /**
   * `partner.group_changed` (reason `import`) for the `count` members an import moved, from its
   * GROUP_MOVES_TABLE, in the import's transaction: the payloads are made in SQL.
   */
  async importMoves(tenantId: string, count: number): Promise<void> {
    // Keys in the order of EventPayloads['partner.group_changed'], as JSON.stringify writes them.
    await this.events.emitSelected(tenantId, 'partner.group_changed', count, {
      sql: `SELECT ord, '{"user_id":' || to_json(service_user_id)
                   || ',"from_group_id":' || to_json(from_group_id)
                   || ',"to_group_id":' || to_json(to_group_id) || ',"reason":"import"}' AS payload
              FROM ${GROUP_MOVES_TABLE}`,
      params: [],
    });
  }

  /** One group as stored (applications read its signup settings), or 404 `group_not_found`. */
  group(tenantId: string, groupId: string): Promise<GroupEntity> {
    return this.find(tenantId, groupId);
  }

  /**
   * The group of this slug when it takes applications (`signup.enabled`, docs/partners.md,
   * "Applications"); a closed group is as unknown as a missing one: 404 `group_not_found`.
   */
  async openForSignup(tenantId: string, slug: string): Promise<GroupEntity> {
    const group = await this.groups.findBySlug(tenantId, slug);
    if (!group?.signup.enabled) throw new GroupNotFoundError(slug);
    return group;
  }

  private async find(tenantId: string, groupId: string): Promise<GroupEntity> {
    const group = await this.groups.find(tenantId, groupId);
    if (!group) throw new GroupNotFoundError(groupId);
    return group;
  }

  private async withCount(group: GroupEntity): Promise<GroupResponse> {
    const counts = await this.members.countByGroup(group.tenantId, [group.id]);
    return toResponse(group, counts.get(group.id) ?? 0);
  }

  /**
   * The promotion of `group` as stored, once its target is a group of the tenant (404 otherwise)
   * and no chain of promotions loops through it (400). Holds the tenant's promotions lock.
   */
  private async checkedPromotion(group: GroupEntity, input: PromoteTo): Promise<PromoteTo> {
    await this.groups.lockPromotions(group.tenantId);
    if (!(await this.groups.find(group.tenantId, input.group_id)))
      throw new GroupNotFoundError(input.group_id);
    const promotions = await this.groups.promotions(group.tenantId);
    if (promotionLoops(promotions, group.id, input.group_id)) {
      throwIfAny([
        { field: 'promote_to.group_id', message: 'a chain of promotions must not loop' },
      ]);
    }
    return promoteToOf(input);
  }
}

function throwIfAny(errors: FieldError[]): void {
  if (errors.length) throw new ValidationFailedError(errors);
}

function toResponse(group: GroupEntity, membersCount: number): GroupResponse {
  return {
    group_id: group.id,
    slug: group.slug,
    name: group.name,
    program: group.program,
    signup: group.signup,
    promote_to: group.promoteTo,
    members_count: membersCount,
    created_at: group.createdAt.toISOString(),
  };
}
