import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../common/access/actor';
import { ValidationFailedError } from '../common/errors/domain-error';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { DEFAULT_ATTRIBUTION_WINDOW_DAYS } from '../tenants/fraud-settings';
import { TransactionHost } from '../database/transaction-host';
import { AuditService } from '../audit/audit.service';
import type { MemberStatusResponse } from './dto/member-status.response';
import type { UpsertUserDto } from './dto/upsert-user.dto';
import type { UpsertUserResponse } from './dto/upsert-user.response';
import { GROUP_DIRECTORY, type GroupChangeReason, type GroupDirectory } from './group-directory';
import type { MemberEntity } from './member.entity';
import { MemberGroupsRepository } from './member-groups.repository';
import { MembersRepository, type TreeMember, type UplineMember } from './members.repository';
import type { ServiceUserEntity } from './service-user.entity';
import { isRefExpired, verifyRef } from './signed-ref';
import { ServiceUsersRepository } from './service-users.repository';
import {
  InvalidRefError,
  ReferralCycleError,
  ReferrerNotFoundError,
  RefExpiredError,
  MemberBannedError,
  MemberErasedError,
  MemberNotFoundError,
} from './member.errors';

/** The network's shapes other features read through this service (the embed tree). */
export type { TreeMember, UplineMember } from './members.repository';

type MemberFields = Pick<MemberEntity, 'email' | 'emailVerified' | 'vkId' | 'fullName' | 'role'>;

@Injectable()
export class MembersService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly members: MembersRepository,
    private readonly memberGroups: MemberGroupsRepository,
    private readonly serviceUsers: ServiceUsersRepository,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
    @Inject(GROUP_DIRECTORY) private readonly groups: GroupDirectory,
  ) {}

  /**
   * The Federation upsert (docs/money.md), keyed by (tenant, external_id), in one transaction.
   * A referrer is set only while the member has none; setting one takes the tenant's tree lock so
   * the cycle check and the move cannot interleave with another change to the network.
   */
  upsert(
    tenantId: string,
    dto: UpsertUserDto,
    attributionWindowDays = DEFAULT_ATTRIBUTION_WINDOW_DAYS,
  ): Promise<UpsertUserResponse> {
    const referrerUserId = this.referrerOf(tenantId, dto, attributionWindowDays);
    return this.tx.transaction(async () => {
      const groupId = dto.group && (await this.groups.groupIdBySlug(tenantId, dto.group));
      const answer = await this.upsertMember(tenantId, dto, referrerUserId, groupId);
      // docs/fraud.md: the member's last seen IP, for the self_referral signal.
      if (dto.client?.ip) {
        await this.members.setLastSeenIp(tenantId, answer.tenant_service_id, dto.client.ip);
      }
      return answer;
    });
  }

  private upsertMember(
    tenantId: string,
    dto: UpsertUserDto,
    referrerUserId: string | undefined,
    groupId: string | undefined,
  ): Promise<UpsertUserResponse> {
    return this.tx.transaction(async () => {
      if (referrerUserId) await this.members.lockTree(tenantId);
      const referrer = referrerUserId
        ? await this.members.findByRef(tenantId, referrerUserId)
        : null;
      if (referrerUserId && !referrer) throw new ReferrerNotFoundError(referrerUserId);

      const existing = await this.members.findByExternalIdForUpdate(tenantId, dto.external_id);
      if (existing) return this.updateMember(existing, dto, referrer, groupId);
      const applicant = await this.applicantToTake(tenantId, dto);
      if (applicant) return this.updateMember(applicant, dto, referrer, groupId);

      const created = await this.createMember(tenantId, dto, referrer, groupId);
      if (created) return created;
      // A concurrent upsert of the same external_id committed first: update that one instead.
      const winner = (await this.members.findByExternalIdForUpdate(tenantId, dto.external_id))!;
      return this.updateMember(winner, dto, referrer, groupId);
    });
  }

  /**
   * docs/partners.md, "Applications": a member made by approving an application has the
   * application id as its `external_id` until the tenant's back end upserts a user with
   * `email_verified` and that email (and an `external_id` no member holds, the caller's case):
   * that upsert takes the member and gives it its `external_id`.
   */
  private async applicantToTake(
    tenantId: string,
    dto: UpsertUserDto,
  ): Promise<MemberEntity | null> {
    if (!dto.email_verified || !dto.email || dto.external_id.startsWith('apl_')) return null;
    const applicant = await this.members.findApplicantForUpdate(tenantId, dto.email);
    if (!applicant) return null;
    await this.members.update(applicant, { externalId: dto.external_id, updatedAt: new Date() });
    return { ...applicant, externalId: dto.external_id };
  }

  /** The referrer named by `referrer_user_id` or by a verified `signed_ref` (not both). */
  private referrerOf(
    tenantId: string,
    dto: UpsertUserDto,
    attributionWindowDays: number,
  ): string | undefined {
    if (dto.signed_ref === undefined) return dto.referrer_user_id;
    if (dto.referrer_user_id !== undefined) {
      throw new ValidationFailedError([
        { field: 'signed_ref', message: 'give either referrer_user_id or signed_ref, not both' },
      ]);
    }
    const claims = verifyRef(dto.signed_ref, this.config.refSigningSecret, tenantId);
    if (!claims) throw new InvalidRefError();
    if (isRefExpired(claims, attributionWindowDays)) throw new RefExpiredError();
    return claims.r;
  }

  private async createMember(
    tenantId: string,
    dto: UpsertUserDto,
    referrer: MemberEntity | null,
    groupId: string | undefined,
  ): Promise<UpsertUserResponse | null> {
    const serviceUser = await this.serviceUserFor(tenantId, dto);
    const id = newId('member');
    const now = new Date();
    const member: MemberEntity = {
      tenantId,
      id,
      serviceUserId: serviceUser.id,
      externalId: dto.external_id,
      email: dto.email ?? null,
      emailVerified: dto.email_verified ?? false,
      vkId: dto.vk_id ?? null,
      fullName: dto.full_name ?? null,
      role: dto.role ?? 'partner',
      referrerMemberId: referrer?.id ?? null,
      depth: referrer ? referrer.depth + 1 : 0,
      rootMemberId: referrer ? referrer.rootMemberId : id,
      isActive: true,
      groupId,
      claimRequired: true,
      downlineCount: 0,
      deepestDepth: referrer ? referrer.depth + 1 : 0,
      leadsCount: 0,
      clicksCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.members.insertIfAbsent(member))) return null;
    if (referrer) await this.members.growUpline(tenantId, referrer.id, 1, member.depth);
    return {
      tenant_service_id: id,
      service_user_id: serviceUser.id,
      action: 'created',
      referrer_user_id: referrer?.serviceUserId ?? null,
    };
  }

  private async updateMember(
    member: MemberEntity,
    dto: UpsertUserDto,
    referrer: MemberEntity | null,
    groupId: string | undefined,
  ): Promise<UpsertUserResponse> {
    const changes = changedFields(member, {
      email: dto.email,
      emailVerified: dto.email_verified,
      vkId: dto.vk_id,
      fullName: dto.full_name,
      role: dto.role,
    });
    let referrerInForce = member.referrerMemberId
      ? await this.members.findById(member.tenantId, member.referrerMemberId)
      : null;

    if (referrer && !member.referrerMemberId) {
      // A member without a referrer is the root of its own tree: the referrer is in that tree
      // exactly when the tree's root is this member.
      if (referrer.id === member.id || referrer.rootMemberId === member.id) {
        throw new ReferralCycleError();
      }
      await this.members.attachTree(member, referrer);
      referrerInForce = referrer;
    }

    const groupChanged = !!groupId && (await this.moveToGroup(member, groupId, 'upsert')) !== null;
    const fieldsChanged = Object.keys(changes).length > 0 || groupChanged;
    if (Object.keys(changes).length > 0) {
      await this.members.update(member, { ...changes, updatedAt: new Date() });
    }
    const referrerChanged = referrerInForce?.id !== (member.referrerMemberId ?? undefined);
    return {
      tenant_service_id: member.id,
      service_user_id: member.serviceUserId,
      action: fieldsChanged || referrerChanged ? 'updated' : 'unchanged',
      referrer_user_id: referrerInForce?.serviceUserId ?? null,
    };
  }

  /**
   * The service-wide person for a new member: the one with the same vk_id, else the one with the
   * same verified email, unless that person is already a member of this tenant (then a new one,
   * so a service user id names at most one member per tenant).
   */
  private async serviceUserFor(tenantId: string, dto: UpsertUserDto): Promise<ServiceUserEntity> {
    const verifiedEmail = dto.email_verified && dto.email ? dto.email.toLowerCase() : null;
    for (let attempt = 0; attempt < 3; attempt++) {
      const byVk = dto.vk_id ? await this.serviceUsers.findByVkId(dto.vk_id) : null;
      const byEmail =
        !byVk && verifiedEmail ? await this.serviceUsers.findByVerifiedEmail(verifiedEmail) : null;
      const match = byVk ?? byEmail;
      if (match && !(await this.members.findByServiceUser(tenantId, match.id))) return match;

      const fresh: ServiceUserEntity = {
        id: newId('serviceUser'),
        // A claim already held by someone (a member of this tenant) is not taken over.
        vkId: match ? null : (dto.vk_id ?? null),
        verifiedEmail: match ? null : verifiedEmail,
        createdAt: new Date(),
      };
      if (await this.serviceUsers.insertIfUnclaimed(fresh)) return fresh;
      // Another tenant claimed this vk_id or email a moment ago: look again and share it.
    }
    throw new Error('Could not settle the service user after 3 attempts');
  }

  /** A member of this tenant by surrogate id, or 404 `user_not_found` (another tenant's too). */
  async getMember(tenantId: string, memberId: string): Promise<MemberEntity> {
    const member = await this.members.findById(tenantId, memberId);
    if (!member) throw new MemberNotFoundError(memberId);
    return member;
  }

  /**
   * The subtree below `root`, level by level to `maxDepth`, at most `budget` members in all
   * (docs/embedding.md §3). Each level is one indexed query over the previous level's members that
   * have a downline at all (the kept `downline_count`: most members have none), so the cost follows
   * what is returned, never the size of the downline.
   */
  async subtree(
    root: MemberEntity,
    maxDepth: number,
    budget: number,
  ): Promise<{ levels: TreeMember[][]; truncated: boolean }> {
    const levels: TreeMember[][] = [[root]];
    let remaining = budget - 1;
    let frontier = root.downlineCount > 0 ? [root.id] : [];
    for (let depth = 1; depth <= maxDepth && frontier.length; depth++) {
      const rows = await this.members.childrenOf(root.tenantId, frontier, remaining + 1);
      if (rows.length > remaining) {
        if (remaining > 0) levels.push(rows.slice(0, remaining));
        return { levels, truncated: true };
      }
      if (!rows.length) break;
      levels.push(rows);
      remaining -= rows.length;
      frontier = rows.filter((r) => r.downlineCount > 0).map((r) => r.id);
    }
    return { levels, truncated: false };
  }

  /** A member's direct referrals, newest first. */
  directReferrals(tenantId: string, memberId: string, offset: number, limit: number) {
    return this.members.directReferrals(tenantId, memberId, offset, limit);
  }

  findByEmail(tenantId: string, email: string): Promise<MemberEntity | null> {
    return this.members.findByEmail(tenantId, email);
  }

  /** Signing in through the popup once clears `claim_required` (docs/embedding.md §3). */
  markClaimed(tenantId: string, memberId: string): Promise<void> {
    return this.members.markClaimed(tenantId, memberId);
  }

  /** The tenant's member behind a service user id, or null. */
  /** The member named by `usr_…` or `mbr_…` (README, "Ids"); another tenant's is not found. */
  findMember(tenantId: string, ref: string): Promise<MemberEntity | null> {
    return this.members.findByRef(tenantId, ref);
  }

  /**
   * The member and up to `count - 1` of its uplines, nearest first: one primary-key lookup per
   * tier, whatever the depth of the network.
   */
  /** Before a lead or conversion reads who is active: a ban waits for it (docs/fraud.md, "Bans"). */
  holdOffBans(tenantId: string): Promise<void> {
    return this.members.lockBans(tenantId, 'shared');
  }

  /**
   * Bans the member named by `usr_…` or `mbr_…` (deactivated, with the time and reason), or lifts
   * the ban (`null`); null for an unknown member. A ban first waits for the leads and conversions
   * in flight (docs/fraud.md, "Bans"). Runs in the caller's transaction.
   */
  async setBan(
    tenantId: string,
    ref: string,
    ban: { reason: string } | null,
  ): Promise<MemberEntity | null> {
    if (ban) await this.members.lockBans(tenantId, 'exclusive');
    const found = await this.members.findByRef(tenantId, ref);
    return found && this.members.setBan(tenantId, found.id, ban);
  }

  /** Clicks on members' short links, counted by the deeplinks' ClickCounter, added to theirs. */
  addClicks(clicks: { tenantId: string; memberId: string; count: number }[]): Promise<void> {
    return this.members.addClicks(clicks);
  }

  upline(tenantId: string, memberId: string, count: number): Promise<UplineMember[]> {
    return this.members.upline(tenantId, memberId, count);
  }

  /**
   * Activates or deactivates the member named by `usr_…` or `mbr_…`. A banned member is not
   * activated (409 `user_banned`): the ban is lifted by BansService's unban, so that the member,
   * their links and the console agree on one state.
   */
  async setActive(
    tenantId: string,
    ref: string,
    isActive: boolean,
    actor: Actor,
  ): Promise<MemberStatusResponse> {
    return this.tx.transaction(async () => {
      const found = await this.members.findByRef(tenantId, ref);
      const member = found && (await this.members.setActive(tenantId, found.id, isActive));
      if (!member) throw new MemberNotFoundError(ref);
      if (member === 'banned') throw new MemberBannedError(ref);
      if (member === 'erased') throw new MemberErasedError(ref);
      await this.audit.record(tenantId, actor, isActive ? 'user.activated' : 'user.deactivated', {
        type: 'user',
        id: member.id,
      });
      return {
        user_id: member.id,
        service_user_id: member.serviceUserId,
        is_active: member.isActive,
        erased: !!member.erasedAt,
      };
    });
  }

  /**
   * Moves the member named by `usr_…` or `mbr_…` to the tenant's group `groupId` (docs/partners.md),
   * in the caller's transaction; 404 `user_not_found` for an unknown member. A move to the group
   * the member is in changes nothing and emits nothing. Answers the member and the group it left
   * (null: it did not move).
   */
  async setGroup(
    tenantId: string,
    ref: string,
    groupId: string,
    reason: GroupChangeReason,
  ): Promise<{ member: MemberEntity; fromGroupId: string | null }> {
    const member = await this.members.findByRef(tenantId, ref);
    if (!member) throw new MemberNotFoundError(ref);
    return { member, fromGroupId: await this.moveToGroup(member, groupId, reason) };
  }

  private async moveToGroup(
    member: MemberEntity,
    groupId: string,
    reason: GroupChangeReason,
  ): Promise<string | null> {
    const from = await this.memberGroups.setGroup(member.tenantId, member.id, groupId);
    if (from === null) return null;
    await this.groups.moved(member.tenantId, {
      memberId: member.id,
      serviceUserId: member.serviceUserId,
      fromGroupId: from,
      toGroupId: groupId,
      reason,
    });
    return from;
  }

  /** How many members each of the groups has. */
  countByGroup(tenantId: string, groupIds: string[]): Promise<Map<string, number>> {
    return this.memberGroups.countByGroup(tenantId, groupIds);
  }

  /**
   * The member and its uplines as `upline` reads them, with the program of the member's group
   * (null when the group has none), in one statement: the chain is as long as the group's program
   * has tiers, else `tenantTiers`.
   */
  uplineWithGroupProgram(tenantId: string, memberId: string, tenantTiers: number) {
    return this.memberGroups.uplineWithGroupProgram(tenantId, memberId, tenantTiers);
  }

  /** The promotion of the member's group, as stored (null: none). */
  groupPromotionOf(tenantId: string, memberId: string): Promise<unknown> {
    return this.memberGroups.promotionOf(tenantId, memberId);
  }
}

/** The given fields whose value differs from the stored one; absent fields change nothing. */
function changedFields(member: MemberEntity, input: Partial<MemberFields>): Partial<MemberFields> {
  const changes: Partial<MemberFields> = {};
  for (const key of Object.keys(input) as (keyof MemberFields)[]) {
    const value = input[key];
    if (value !== undefined && value !== null && value !== member[key]) {
      Object.assign(changes, { [key]: value });
    }
  }
  return changes;
}
